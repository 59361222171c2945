import type { RunFileContent } from "@volley/db";
import {
  feederPath,
  forEachTemplate,
  formatPath,
  MAX_DATA_BYTES,
  multipartFiles,
  parseTemplate,
  passphraseEnvName,
  type Scenario,
  templateDataFields,
  templateEnvNames,
  tlsSettings,
  ValidationError,
  type ValidationIssue,
} from "@volley/protocol";
import { type FeederData, inlineFeeder, readFeederFiles } from "./feeder-data.js";
import { runProtos } from "./run-protos.js";
import type { RunScripts } from "./run-scripts.js";
import { runCertificates } from "./run-tls.js";

/** What a run needs besides its scenario: feeder tables and env values, resolved at creation. */
export interface RunInputs {
  data: Record<string, FeederData>;
  /** Files of multipart bodies, base64. */
  attachments: Record<string, string>;
  env: Record<string, string>;
  /** The files the scenario used, as sent: kept with the run so "Run again" can reuse them. */
  files: RunFileContent[];
  /** Bundled scripts by the path the scenario names them (see `bundleRunScripts`). */
  scripts: Record<string, string>;
  /** The lifecycle hooks each script exports. */
  hooks: RunScripts["hooks"];
}

/**
 * Reads every feeder (files the client sent, inline rows) into tables and the scenario's `env`
 * names into values (the client's first, then the master's allow-listed ones). Throws a
 * ValidationError naming each bad file, line, field or variable; nothing is written before.
 */
export async function resolveRunInputs(
  scenario: Scenario,
  files: Record<string, string>,
  env: Record<string, string>,
  attachments: Record<string, string> = {},
  masterEnv: Record<string, string> = {},
): Promise<RunInputs> {
  const issues: ValidationIssue[] = [];
  const sent: Record<string, string> = {};
  scenario.requests.forEach((request, index) => {
    for (const file of multipartFiles(request)) {
      if (!Object.hasOwn(attachments, file)) {
        issues.push({
          path: `${formatPath(scenario.requestPaths[index])}.multipart`,
          message: `${file} was not sent with the scenario (volley run sends it; the API takes it in "attachments", base64)`,
        });
      } else {
        sent[file] = attachments[file];
      }
    }
  });
  const protos = runProtos(scenario, attachments);
  issues.push(...protos.issues);
  Object.assign(sent, protos.protos);
  const data: Record<string, FeederData> = {};
  const toRead: Parameters<typeof readFeederFiles>[0] = [];
  const kept: RunFileContent[] = Object.entries(sent).map(([name, base64]) => ({
    kind: "attachment",
    name,
    content: Buffer.from(base64, "base64"),
  }));
  let bytes = 0;
  for (const [name, feeder] of Object.entries(scenario.data)) {
    if (feeder.rows) {
      data[name] = inlineFeeder(feeder.rows);
      continue;
    }
    const file = feeder.file as string;
    const text = Object.hasOwn(files, file) ? files[file] : undefined;
    if (text === undefined) {
      issues.push({
        path: `${feederPath(scenario, name)}.file`,
        message: `${file} was not sent with the scenario (volley run sends it; the API takes it in "files")`,
      });
      continue;
    }
    bytes += text.length;
    if (!kept.some((f) => f.kind === "feeder" && f.name === file)) {
      kept.push({ kind: "feeder", name: file, content: Buffer.from(text, "utf8") });
    }
    toRead.push({ name, file, text, columns: feeder.columns });
  }
  for (const answer of await readFeederFiles(toRead)) {
    if ("error" in answer)
      issues.push({ path: `${feederPath(scenario, answer.name)}.file`, message: answer.error });
    else data[answer.name] = { columns: answer.columns, rowCount: answer.rowCount, json: answer.json };
  }
  for (const content of Object.values(sent)) bytes += (content.length * 3) / 4;
  if (bytes > MAX_DATA_BYTES) {
    issues.push({
      path: "data",
      message: `the feeder and multipart files together pass ${MAX_DATA_BYTES / 1024 / 1024} MiB`,
    });
  }
  // One pass over the templates: feeder columns they read must exist; env names they read travel.
  const usedEnv = new Set<string>();
  forEachTemplate(scenario, (text, path) => {
    const parts = parseTemplate(text);
    for (const name of templateEnvNames(parts)) usedEnv.add(name);
    for (const { feeder, field } of templateDataFields(parts)) {
      const table = data[feeder];
      if (table && !table.columns.includes(field)) {
        issues.push({
          path: formatPath(path),
          message: `{{data.${feeder}.${field}}}: ${scenario.data[feeder]?.file ?? feeder} has no column "${field}" (it has ${table.columns.join(", ")})`,
        });
      }
    }
  });
  const values: Record<string, string> = {};
  for (const name of scenario.env) {
    const value = Object.hasOwn(env, name)
      ? env[name]
      : Object.hasOwn(masterEnv, name)
        ? masterEnv[name]
        : undefined;
    if (value === undefined) {
      issues.push({
        path: "env",
        message: `${name} is not set: send it with the run (volley run reads it from its shell), or let the master lend it (--env-from-master ${name})`,
      });
    } else {
      values[name] = value;
    }
  }
  const tls = runCertificates(scenario, attachments, values);
  issues.push(...tls.issues);
  for (const [name, base64] of Object.entries(tls.certificates)) {
    sent[name] = base64;
    kept.push({ kind: "certificate", name, content: Buffer.from(base64, "base64") });
  }
  for (const { tls } of tlsSettings(scenario.http)) {
    const name = passphraseEnvName(tls.passphrase);
    if (name !== null) usedEnv.add(name);
  }
  if (issues.length) throw new ValidationError("scenario", issues);
  return {
    data,
    attachments: sent,
    // Only what the templates read travels to the workers; a script may read any listed name.
    env: scenario.parts.some((part) => part.script !== null)
      ? values
      : Object.fromEntries(Object.entries(values).filter(([name]) => usedEnv.has(name))),
    files: kept,
    scripts: {},
    hooks: {},
  };
}
