import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../json-depth.js";
import { type FeederConfig, tableFromRows } from "./data.js";
import type { RequestConfig } from "./request.js";
import {
  parseTemplate,
  TemplateSyntaxError,
  templateDataFields,
  templateEnvNames,
  templateVariables,
} from "./template.js";

/** Every template text of a scenario's requests, with the field path it came from. */
export function forEachTemplate(
  scenario: { requests: readonly RequestConfig[]; requestPaths: ReadonlyArray<Array<string | number>> },
  visit: (text: string, path: Array<string | number>) => void,
): void {
  scenario.requests.forEach((request, index) => {
    const at = (...path: Array<string | number>) => [...scenario.requestPaths[index], ...path];
    if (request.path !== undefined) visit(request.path, at("path"));
    if (request.url !== undefined) visit(request.url, at("url"));
    for (const [key, value] of Object.entries(request.query ?? {})) visit(String(value), at("query", key));
    for (const [key, value] of Object.entries(request.headers ?? {})) visit(value, at("headers", key));
    if (request.body !== undefined && !jsonDepthExceeds(request.body, MAX_JSON_DEPTH)) {
      visit(typeof request.body === "string" ? request.body : JSON.stringify(request.body), at("body"));
    }
    if (request.json !== undefined && !jsonDepthExceeds(request.json, MAX_JSON_DEPTH)) {
      visit(JSON.stringify(request.json), at("json"));
    }
    for (const [key, value] of Object.entries(request.form ?? {})) {
      if (!Array.isArray(value)) visit(String(value), at("form", key));
      else for (const [i, item] of value.entries()) visit(String(item), at("form", key, i));
    }
    for (const [key, value] of Object.entries(request.multipart ?? {})) {
      if (typeof value !== "object") visit(String(value), at("multipart", key));
    }
    if (request.ws !== undefined) visit(request.ws, at("ws"));
    if (request.grpc !== undefined) {
      if (!jsonDepthExceeds(request.grpc.message, MAX_JSON_DEPTH)) {
        visit(JSON.stringify(request.grpc.message), at("grpc", "message"));
      }
      for (const [key, value] of Object.entries(request.grpc.metadata ?? {}))
        visit(value, at("grpc", "metadata", key));
    }
    request.steps?.forEach((step, i) => {
      if ("send" in step) visit(step.send, at("steps", i, "send"));
      if ("expect" in step) visit(step.expect, at("steps", i, "expect"));
    });
  });
}

/**
 * Templates reading what the scenario does not have: a variable nobody captures, a feeder or
 * field that does not exist or belongs to another scenario, an environment variable not listed.
 */
export function templateProblems(scenario: {
  requests: readonly RequestConfig[];
  requestPaths: ReadonlyArray<Array<string | number>>;
  env: readonly string[];
  data: Record<string, FeederConfig>;
  feederScenarios: Record<string, string>;
}): Array<{ path: Array<string | number>; message: string }> {
  const problems: Array<{ path: Array<string | number>; message: string }> = [];
  const captured = new Set(scenario.requests.flatMap((r) => Object.keys(r.capture ?? {})));
  const envNames = new Set(scenario.env);
  // Columns are known here for inline rows and named columns; a file's are checked where it is read.
  const inlineColumns = new Map(
    Object.entries(scenario.data).flatMap(([name, feeder]) =>
      feeder.rows
        ? [[name, new Set(tableFromRows(feeder.rows).columns)] as const]
        : feeder.columns
          ? [[name, new Set(feeder.columns)] as const]
          : [],
    ),
  );
  forEachTemplate(scenario, (value, path) => {
    const issue = (message: string) => problems.push({ path, message });
    try {
      const parts = parseTemplate(value);
      for (const name of templateVariables(parts)) {
        if (!captured.has(name)) {
          issue(
            `{{${name}}} is neither a built-in variable (vu, iter, worker, uuid, now, repeat, randomInt, randomString, randomItem, data.*, env.*) nor captured by any request`,
          );
        }
      }
      for (const { feeder, field } of templateDataFields(parts)) {
        const owner = scenario.feederScenarios[feeder];
        if (!(feeder in scenario.data)) issue(`{{data.${feeder}.${field}}}: no feeder "${feeder}" in data`);
        else if (owner !== undefined && (path[0] !== "scenarios" || path[1] !== owner)) {
          issue(
            `{{data.${feeder}.${field}}}: feeder "${feeder}" belongs to scenario ${owner}; declare it in the top-level data to share it`,
          );
        } else if (inlineColumns.get(feeder) && !inlineColumns.get(feeder)?.has(field)) {
          issue(`{{data.${feeder}.${field}}}: feeder "${feeder}" has no field "${field}"`);
        }
      }
      for (const name of templateEnvNames(parts)) {
        if (!envNames.has(name)) issue(`{{env.${name}}}: "${name}" is not listed in env`);
      }
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      issue(error.message);
    }
  });
  return problems;
}
