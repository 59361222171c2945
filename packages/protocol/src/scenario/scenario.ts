import { z } from "zod";
import { durationSchema, positiveDurationSchema } from "../duration.js";
import { dataSchema, tableFromRows } from "./data.js";
import { loadSchema } from "./load.js";
import { BODY_FIELDS } from "./request.js";
import { forEachTemplate } from "./scenario-templates.js";
import { flowSchema, layOutSteps, stepsSchema } from "./steps.js";
import {
  parseTemplate,
  TemplateSyntaxError,
  templateDataFields,
  templateEnvNames,
  templateVariables,
} from "./template.js";
import { NO_THINK_TIME, thinkTimeSchema } from "./think-time.js";
import { parseThreshold, ThresholdSyntaxError } from "./thresholds.js";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const MAX_BODY_BYTES = 256 * 1024 * 1024;

const targetSchema = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a URL: use http://host:port` });
    return;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    ctx.addIssue({ code: "custom", message: `"${text}" must use http:// or https://` });
  } else if (url.search || url.hash) {
    ctx.addIssue({
      code: "custom",
      message: "target must not carry a query or fragment; put them in each request",
    });
  }
});

/** A threshold that can stop the run: `{ threshold: "<200ms", abortOnFail: true, delayAbortEval: "10s" }`. */
const thresholdObjectSchema = z.strictObject({
  threshold: z.string(),
  /** Stop the run (status aborted, reason threshold) as soon as the merged data breaks it. */
  abortOnFail: z.boolean().default(false),
  /** Not judged for aborting before this much of the run has passed. @defaultValue "0s" */
  delayAbortEval: durationSchema.default(0),
});

const thresholdsSchema = z
  .record(z.string(), z.union([z.string(), thresholdObjectSchema]))
  .superRefine((thresholds, ctx) => {
    for (const [key, value] of Object.entries(thresholds)) {
      try {
        parseThreshold(key, typeof value === "string" ? value : value.threshold);
      } catch (error) {
        if (!(error instanceof ThresholdSyntaxError)) throw error;
        ctx.addIssue({ code: "custom", path: [key], message: error.message });
      }
    }
  })
  .transform((thresholds) => ({
    rules: Object.fromEntries(
      Object.entries(thresholds).map(([key, value]) => [
        key,
        typeof value === "string" ? value : value.threshold,
      ]),
    ),
    aborts: Object.entries(thresholds).flatMap(([key, value]) =>
      typeof value === "object" && value.abortOnFail ? [{ key, delayMs: value.delayAbortEval }] : [],
    ),
  }));

// Field checks run first; the cross-field checks below run once every field is valid.
export const scenarioSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    target: targetSchema,
    load: loadSchema,
    /** The requests of every iteration, in order (requests, groups, repeats); or `flows`. */
    requests: stepsSchema.optional(),
    /** Weighted alternatives: each iteration runs one flow, picked by weight. */
    flows: z.array(flowSchema).min(1).max(50).optional(),
    thinkTime: thinkTimeSchema.default(NO_THINK_TIME),
    /** Per-request timeout unless a request sets its own. @defaultValue "10s" */
    timeout: positiveDurationSchema.default(10_000),
    thresholds: thresholdsSchema.default({ rules: {}, aborts: [] }),
    /** Feeders: rows handed to iterations, read as {{data.FEEDER.FIELD}}. */
    data: dataSchema.default({}),
    /** Environment variables the templates read as {{env.NAME}}; their values are never stored. */
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "not an environment variable name" }))
      .max(100)
      .default([]),
    http: z
      .strictObject({
        /** Idle keep-alive sockets are closed after this long. @defaultValue "4s" */
        keepAliveTimeout: durationSchema.default(4000),
        connectTimeout: positiveDurationSchema.default(10_000),
        /** Most connections per thread; by default one per VU of the thread. */
        maxConnections: z.int().min(1).max(1_000_000).optional(),
        /** Accept any TLS certificate (self-signed test servers). @defaultValue false */
        insecureTls: z.boolean().default(false),
        /**
         * Most bytes of a response body kept for captures and `expect.body`; past it the request
         * fails (kind `expect`) and the rest is read and discarded. @defaultValue 1048576 (1 MiB)
         */
        maxBodyBytes: z.int().min(1).max(MAX_BODY_BYTES).default(DEFAULT_MAX_BODY_BYTES),
        /** One cookie jar per VU: Set-Cookie is kept and sent back. @defaultValue true */
        cookies: z.boolean().default(true),
        /** Redirects followed per request (each hop is a request of the same name); 0 = off. @defaultValue 0 */
        followRedirects: z.int().min(0).max(20).default(0),
        /** Ask for gzip, br or deflate and decode before captures and expectations. @defaultValue false */
        compression: z.boolean().default(false),
      })
      .default({
        keepAliveTimeout: 4000,
        connectTimeout: 10_000,
        insecureTls: false,
        maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
        cookies: true,
        followRedirects: 0,
        compression: false,
      }),
  })
  .transform((written, ctx) => {
    if ((written.requests === undefined) === (written.flows === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: written.flows ? ["flows"] : ["requests"],
        message: written.flows
          ? "a scenario has requests or flows, not both"
          : "a scenario needs at least one request",
      });
      return z.NEVER;
    }
    const { problems, ...layout } = layOutSteps(written.requests, written.flows);
    for (const problem of problems) ctx.addIssue({ code: "custom", ...problem });
    const { flows: _written, requests: _steps, thresholds, ...rest } = written;
    return { ...rest, ...layout, thresholds: thresholds.rules, thresholdAborts: thresholds.aborts };
  })
  .superRefine((scenario, ctx) => {
    const captured = new Set(scenario.requests.flatMap((r) => Object.keys(r.capture ?? {})));
    const envNames = new Set(scenario.env);
    // Columns are known here for inline rows; a file's are checked where the file is read.
    const inlineColumns = new Map(
      Object.entries(scenario.data).flatMap(([name, feeder]) =>
        feeder.rows ? [[name, new Set(tableFromRows(feeder.rows).columns)] as const] : [],
      ),
    );
    scenario.requests.forEach((request, index) => {
      if ((request.path === undefined) === (request.url === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [...scenario.requestPaths[index], request.url === undefined ? "path" : "url"],
          message: request.url === undefined ? "is required (or give url)" : "give path or url, not both",
        });
      }
      const bodies = BODY_FIELDS.filter((field) => request[field] !== undefined);
      if (bodies.length > 1) {
        ctx.addIssue({
          code: "custom",
          path: [...scenario.requestPaths[index], bodies[1]],
          message: `a request has one body: ${bodies.join(" and ")} are both set`,
        });
      }
    });
    const requestNames = new Set(scenario.requests.map(requestName));
    for (const [index, group] of scenario.groups.entries()) {
      if (requestNames.has(group)) {
        ctx.addIssue({
          code: "custom",
          path: scenario.groupPaths[index],
          message: `"${group}" names both a group and a request: give them different names`,
        });
      }
    }
    forEachTemplate(scenario, (value, path) => {
      const issue = (message: string) => ctx.addIssue({ code: "custom", path, message });
      try {
        const parts = parseTemplate(value);
        for (const name of templateVariables(parts)) {
          if (!captured.has(name)) {
            issue(
              `{{${name}}} is neither a built-in variable (vu, iter, worker, uuid, now, randomInt, randomString, randomItem, data.*, env.*) nor captured by any request`,
            );
          }
        }
        for (const { feeder, field } of templateDataFields(parts)) {
          if (!(feeder in scenario.data)) issue(`{{data.${feeder}.${field}}}: no feeder "${feeder}" in data`);
          else if (inlineColumns.get(feeder) && !inlineColumns.get(feeder)?.has(field)) {
            issue(`{{data.${feeder}.${field}}}: feeder "${feeder}" has no field "${field}"`);
          }
        }
        for (const name of templateEnvNames(parts)) {
          if (!envNames.has(name)) issue(`{{env.${name}}}: "${name}" is not listed in env`);
        }
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        ctx.addIssue({ code: "custom", path, message: error.message });
      }
    });
    const names = new Set([...scenario.requests.map(requestName), ...scenario.groups]);
    for (const [key, expression] of Object.entries(scenario.thresholds)) {
      let rule: ReturnType<typeof parseThreshold>;
      try {
        rule = parseThreshold(key, expression);
      } catch {
        continue; // reported by the field check
      }
      if (rule.request !== undefined && !names.has(rule.request)) {
        ctx.addIssue({
          code: "custom",
          path: ["thresholds", key],
          message: `no request or group is named "${rule.request}"`,
        });
      }
    }
  });

/** A scenario as a user writes it (durations as text). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** A validated scenario (durations in milliseconds, defaults filled in). */
export type Scenario = z.output<typeof scenarioSchema>;

/** How reports show a request: its name, after its method unless the name starts with it. */
export function requestLabel(method: string, name: string): string {
  return name.startsWith(`${method} `) ? name : `${method} ${name}`;
}

/** The name a request's statistics are grouped under. */
export function requestName(request: { name?: string; method: string; path?: string; url?: string }): string {
  return request.name ?? `${request.method} ${request.path ?? request.url}`;
}

/** Every name a run's statistics come under: its requests', then its groups'. */
export function statsNames(scenario: Scenario): string[] {
  return [...new Set(scenario.requests.map(requestName)), ...scenario.groups];
}
