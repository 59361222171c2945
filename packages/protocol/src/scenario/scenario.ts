import { z } from "zod";
import { workerSelectionSchema } from "../api/worker-labels.js";
import { positiveDurationSchema } from "../duration.js";
import { crossFieldContext } from "./cross-field.js";
import { dataSchema } from "./data.js";
import { grpcRequestProblems, isGrpcTarget } from "./grpc-request.js";
import { httpSettingsSchema } from "./http-settings.js";
import { type LoadConfig, loadSchema } from "./load.js";
import { BODY_FIELDS } from "./request.js";
import { requestName, requestStatsNames } from "./scenario-names.js";
import { templateProblems } from "./scenario-templates.js";
import { thresholdProblems, thresholdsSchema } from "./scenario-thresholds.js";
import { MAX_SCENARIO_NAME, scopedName, unscopedName } from "./scoped-names.js";
import { type Flow, flowSchema, layOutSteps, stepsSchema, type WrittenPart } from "./steps.js";
import { relativeFileSchema } from "./text-rules.js";
import { NO_THINK_TIME, type ThinkTime, thinkTimeSchema } from "./think-time.js";
import { wsRequestProblems } from "./ws-request.js";

const targetSchema = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a URL: use http://host:port` });
    return;
  }
  if (!["http:", "https:", "grpc:", "grpcs:"].includes(url.protocol)) {
    ctx.addIssue({
      code: "custom",
      message: `"${text}" must use http:// or https:// (or grpc:// or grpcs:// for gRPC)`,
    });
  } else if (url.search || url.hash) {
    ctx.addIssue({
      code: "custom",
      message: "target must not carry a query or fragment; put them in each request",
    });
  }
});

const PART_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A script's path, relative to the scenario file: a TypeScript or JavaScript module. */
export const scriptPathSchema = relativeFileSchema("./flow.ts").refine(
  (path) => /\.(ts|mts|js|mjs)$/.test(path),
  { error: "a script is a .ts, .mts, .js or .mjs file" },
);

/** One of `scenarios:`: its own load, think time, and requests or flows. */
const partSchema = z.strictObject({
  load: loadSchema,
  thinkTime: thinkTimeSchema.optional(),
  requests: stepsSchema.optional(),
  flows: z.array(flowSchema).min(1).max(50).optional(),
  /** A module whose default export is one iteration of a VU (instead of requests or flows). */
  script: scriptPathSchema.optional(),
  /** Feeders only this scenario reads; their names share one namespace with the top-level `data`. */
  data: dataSchema.optional(),
});

/** A load running in the run: the scenario itself, or one of its `scenarios:`. */
export interface ScenarioPart {
  /** null for a scenario without `scenarios:`. */
  name: string | null;
  load: LoadConfig;
  thinkTime: ThinkTime;
  /** Empty for a scripted part. */
  flows: Flow[];
  /** The script its VUs run (path as written), or null for requests and flows. */
  script: string | null;
}

// Field checks run first; the cross-field checks below run once every field is valid.
export const scenarioSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    target: targetSchema,
    load: loadSchema.optional(),
    /** The requests of every iteration, in order (requests, groups, repeats); or `flows`. */
    requests: stepsSchema.optional(),
    /** Weighted alternatives: each iteration runs one flow, picked by weight. */
    flows: z.array(flowSchema).min(1).max(50).optional(),
    /** A module whose default export is one iteration of a VU (instead of requests or flows). */
    script: scriptPathSchema.optional(),
    /** Several named loads at once, each with its own executor (instead of load + requests). */
    scenarios: z
      .record(
        z
          .string()
          .regex(PART_NAME_RE, { error: "a scenario name must be a plain identifier" })
          .max(MAX_SCENARIO_NAME, { error: `a scenario name has at most ${MAX_SCENARIO_NAME} characters` }),
        partSchema,
      )
      .refine((parts) => Object.keys(parts).length >= 1 && Object.keys(parts).length <= 20, {
        error: "give 1 to 20 scenarios",
      })
      .optional(),
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
    http: httpSettingsSchema,
    /** Which workers run it: those whose labels match `selector`, `count` of them (default: every free one). */
    workers: workerSelectionSchema.optional(),
  })
  .transform((written, ctx) => {
    const issue = (path: Array<string | number>, message: string) =>
      ctx.addIssue({ code: "custom", path, message });
    const oneOf = (
      part: { requests?: unknown; flows?: unknown; script?: unknown },
      at: Array<string | number>,
    ) => {
      const given = (["requests", "flows", "script"] as const).filter((field) => part[field] !== undefined);
      if (given.length === 0)
        issue([...at, "requests"], "a scenario needs at least one request (or a script)");
      else if (given.length > 1) {
        issue(
          [...at, given[1]],
          `a scenario has requests, flows or a script: ${given.join(" and ")} are both set`,
        );
      }
    };
    let writtenParts: Array<WrittenPart & { load: LoadConfig; thinkTime: ThinkTime }>;
    if (written.scenarios) {
      for (const field of ["load", "requests", "flows", "script"] as const) {
        if (written[field] !== undefined) issue([field], "goes inside each of scenarios, not beside them");
      }
      writtenParts = Object.entries(written.scenarios).map(([name, part]) => {
        oneOf(part, ["scenarios", name]);
        return { ...part, name, path: ["scenarios", name], thinkTime: part.thinkTime ?? written.thinkTime };
      });
    } else {
      if (written.load === undefined) issue(["load"], "is required");
      oneOf(written, []);
      writtenParts = [{ ...written, load: written.load as LoadConfig, name: null, path: [] }];
    }
    const data = { ...written.data };
    const feederScenarios: Record<string, string> = {};
    for (const [part, { data: own }] of Object.entries(written.scenarios ?? {})) {
      for (const [feeder, config] of Object.entries(own ?? {})) {
        if (feeder in data) {
          const other = feederScenarios[feeder];
          issue(
            ["scenarios", part, "data", feeder],
            `feeder "${feeder}" is also declared ${other ? `by scenario ${other}` : "in the top-level data"}: feeder names are shared, give it another`,
          );
        }
        data[feeder] = config;
        feederScenarios[feeder] = part;
      }
    }
    if (ctx.issues.length) return z.NEVER;
    const { problems, partFlows, ...layout } = layOutSteps(writtenParts);
    for (const problem of problems) ctx.addIssue({ code: "custom", ...problem });
    // Each of `scenarios:` records under its own names (see scoped-names.ts); groups are scoped as laid out.
    layout.requests = layout.requests.map((request, i) => {
      const part = layout.requestScenarios[i];
      return part === null ? request : { ...request, name: scopedName(part, requestName(request)) };
    });
    const parts: ScenarioPart[] = writtenParts.map((part, i) => ({
      name: part.name,
      load: part.load,
      thinkTime: part.thinkTime,
      flows: partFlows[i],
      script: part.script ?? null,
    }));
    const {
      flows: _f,
      requests: _r,
      script: _sc,
      scenarios: _s,
      load: _l,
      thinkTime: _t,
      thresholds,
      ...rest
    } = written;
    return {
      ...rest,
      ...layout,
      parts,
      data,
      /** Feeders declared inside one of `scenarios:`, by the scenario that owns them. */
      feederScenarios,
      thresholds: thresholds.rules,
      thresholdAborts: thresholds.aborts,
    };
  })
  .superRefine((scenario, refinement) => {
    const ctx = crossFieldContext(refinement);
    // Only a scenario the transform laid out (no field issues) is checked across fields.
    if (!Array.isArray(scenario?.parts)) return;
    const grpcTarget = isGrpcTarget(scenario.target);
    scenario.requests.forEach((request, index) => {
      const at = scenario.requestPaths[index];
      if (request.grpc !== undefined || grpcTarget) {
        const problems =
          request.grpc === undefined
            ? [
                {
                  field: "grpc",
                  message: `the target ${scenario.target} speaks gRPC: this request needs grpc:`,
                },
              ]
            : grpcTarget
              ? grpcRequestProblems(request)
              : [{ field: "grpc", message: "a grpc request needs a grpc:// or grpcs:// target" }];
        for (const problem of problems) {
          ctx.addIssue({
            code: "custom",
            path: [...at, ...problem.field.split(".")],
            message: problem.message,
          });
        }
        return;
      }
      if (request.expect?.grpcStatus !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [...at, "expect", "grpcStatus"],
          message: "grpcStatus is for grpc requests: expect a status",
        });
      }
      if (request.ws !== undefined || request.steps !== undefined) {
        for (const problem of wsRequestProblems(request)) {
          ctx.addIssue({
            code: "custom",
            path: [...scenario.requestPaths[index], problem.field],
            message: problem.message,
          });
        }
        return;
      }
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
    if (scenario.http.version !== "1.1") {
      // Version 2 is negotiated by ALPN in the TLS handshake; 2c speaks HTTP/2 on a plain socket.
      const tls = scenario.http.version === "2";
      const wrong = tls ? "http:" : "https:";
      const message = tls
        ? 'HTTP/2 (version 2) runs over TLS: use https://, or http.version "2c" for HTTP/2 over plain TCP'
        : 'h2c (version "2c") is HTTP/2 over plain TCP: use http://, or http.version 2 for HTTP/2 over TLS';
      if (scenario.target.startsWith(wrong)) ctx.addIssue({ code: "custom", path: ["target"], message });
      scenario.requests.forEach((request, index) => {
        if (request.url?.startsWith(wrong)) {
          ctx.addIssue({ code: "custom", path: [...scenario.requestPaths[index], "url"], message });
        }
      });
    }
    // A parallel step's requests share the VU's HTTP connections; a socket is a step of its own.
    for (const part of scenario.parts) {
      for (const flow of part.flows) {
        for (const op of flow.program) {
          if (op.op !== "parallel") continue;
          for (const index of op.requests) {
            const kind =
              scenario.requests[index].ws !== undefined
                ? "ws"
                : scenario.requests[index].grpc !== undefined
                  ? "grpc"
                  : null;
            if (kind === null) continue;
            ctx.addIssue({
              code: "custom",
              path: [...scenario.requestPaths[index], kind],
              message: `a parallel step sends HTTP requests: make this ${kind} request a step of its own`,
            });
          }
        }
      }
    }
    const requestNames = new Set(scenario.requests.flatMap(requestStatsNames));
    if (scenario.parts.length > 1) {
      // A search is judged on the run's merged seconds: another load beside it would muddle them.
      scenario.parts.forEach((part) => {
        if (part.load.executor === "capacity-search") {
          ctx.addIssue({
            code: "custom",
            path: ["scenarios", part.name ?? "", "load", "executor"],
            message: "capacity-search runs alone: give it a scenario of its own",
          });
        }
      });
    }
    const [first] = scenario.parts;
    const sloRequest = first?.load.executor === "capacity-search" ? first.load.slo.request : undefined;
    if (
      sloRequest !== undefined &&
      !requestNames.has(scopedName(first.name, sloRequest)) &&
      first.script === null
    ) {
      const names = [...requestNames].map((key) => unscopedName(key, [first.name]).name);
      ctx.addIssue({
        code: "custom",
        path: ["load", "slo", "request"],
        message: `no request named "${sloRequest}" (requests: ${names.join(", ")})`,
      });
    }
    for (const [index, group] of scenario.groups.entries()) {
      if (requestNames.has(group)) {
        ctx.addIssue({
          code: "custom",
          path: scenario.groupPaths[index],
          message: `"${group}" names both a group and a request: give them different names`,
        });
      }
    }
    for (const problem of templateProblems(scenario)) ctx.addIssue({ code: "custom", ...problem });
    for (const problem of thresholdProblems(scenario)) ctx.addIssue({ code: "custom", ...problem });
  });

/** A scenario as a user writes it (durations as text). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** A validated scenario (durations in milliseconds, defaults filled in). */
export type Scenario = z.output<typeof scenarioSchema>;

export {
  checkNames,
  hasParallelRequests,
  recordedStatsNames,
  requestLabel,
  requestName,
  requestStatsNames,
  statsNames,
  summaryLabel,
} from "./scenario-names.js";
