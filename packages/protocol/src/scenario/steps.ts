import { z } from "zod";
import { fieldsAt, unknownFieldsMessage } from "../did-you-mean.js";
import { durationSchema } from "../duration.js";
import { METRIC_METHODS } from "../stats/custom-metrics.js";
import { type RequestConfig, requestSchema, statsNameSchema } from "./request.js";
import { scopedName } from "./scoped-names.js";
import { STREAM_METHODS } from "./stream-names.js";

/** The `method` a group's statistics travel and are stored under (never an HTTP method). */
export const GROUP_METHOD = "GROUP";
/**
 * The method of WebSocket statistics: a handshake (status 101) and each timed exchange on an
 * open socket (a send answered by a matching message) are requests of this method.
 */
export const WS_METHOD = "WS";
/** The `method` of a scripted VU's `vu.check(name, ...)`: one evaluation per record, a failure per false. */
export const CHECK_METHOD = "CHECK";
/** The `method` a script's uncaught errors are counted under (one per iteration it ended). */
export const SCRIPT_METHOD = "SCRIPT";

/** The `method` of a part's finished iterations: one record per iteration, its duration. */
export const ITERATION_METHOD = "ITERATION";
/** The `method` of iterations that could not start (a unique feeder ran out): one record each. */
export const SKIPPED_METHOD = "SKIPPED";

/**
 * The `method` of an arrival rate's iterations due before its thread could begin (it started
 * after the scheduled start): one record each, its value how late the thread began.
 */
export const LATE_START_METHOD = "LATE_START";

/** The `method` of requests a script started and did not await: one record each, named by where. */
export const NOT_AWAITED_METHOD = "NOT_AWAITED";

const NOT_REQUESTS: ReadonlySet<string> = new Set([
  ...Object.values(STREAM_METHODS),
  GROUP_METHOD,
  CHECK_METHOD,
  SCRIPT_METHOD,
  ITERATION_METHOD,
  SKIPPED_METHOD,
  LATE_START_METHOD,
  NOT_AWAITED_METHOD,
  ...METRIC_METHODS,
]);

/** Whether statistics of this method are requests (groups, checks, script errors, iterations and metrics are not). */
export function isRequestMethod(method: string): boolean {
  return !NOT_REQUESTS.has(method);
}

/**
 * Names a part's iteration statistics (and a script's requests not awaited) travel and are stored
 * under. Statistics are keyed by name, so these start with a control character no request or group
 * name can hold: U+0002 (the master's stored rows of a scenario's series start with U+0001).
 */
const ITERATION_PREFIX = "\u0002iterations:";
const SKIPPED_PREFIX = "\u0002skipped:";
const LATE_START_PREFIX = "\u0002late-start:";
const NOT_AWAITED_PREFIX = "\u0002not-awaited:";

export function iterationStatsName(part: string | null): string {
  return ITERATION_PREFIX + (part ?? "");
}

export function skippedStatsName(part: string | null): string {
  return SKIPPED_PREFIX + (part ?? "");
}

export function lateStartStatsName(part: string | null): string {
  return LATE_START_PREFIX + (part ?? "");
}

/** Whether a statistic's name is one of those (iterations, skipped ones, requests not awaited): no series of its own. */
export function isIterationStatsName(name: string): boolean {
  return name.charCodeAt(0) === 2;
}

/** Where requests a script did not await were made ("flow.ts:12"; "" when not known yet). */
export function notAwaitedStatsName(at: string): string {
  return NOT_AWAITED_PREFIX + at;
}

export function notAwaitedAt(name: string): string {
  return name.slice(NOT_AWAITED_PREFIX.length);
}

/** The part (its name, "" for a single one) an iteration statistic's name is of. */
export function partOfIterationStats(name: string): string {
  const prefix = [ITERATION_PREFIX, SKIPPED_PREFIX, LATE_START_PREFIX].find((p) => name.startsWith(p)) ?? "";
  return name.slice(prefix.length);
}

/** Whether any flow of the scenario has a `parallel` step (its VUs then need more than one connection). */
export function hasParallelSteps(partFlows: ReadonlyArray<readonly Flow[]>): boolean {
  return partFlows.some((flows) => flows.some((flow) => flow.program.some((op) => op.op === "parallel")));
}

/** Deepest nesting of groups and repeats. */
export const MAX_STEP_DEPTH = 4;
/** Most requests one iteration of a flow sends once its repeats are unrolled. */
export const MAX_PROGRAM_LENGTH = 10_000;

export type StepInput =
  | z.input<typeof requestSchema>
  | { group: string; requests: StepInput[] }
  | { repeat: number; requests: StepInput[] }
  | { parallel: Array<z.input<typeof requestSchema>> }
  | { sleep: string | number };

type Step =
  | { kind: "request"; request: RequestConfig }
  | { kind: "group"; group: string; steps: Step[] }
  | { kind: "repeat"; repeat: number; steps: Step[] }
  | { kind: "parallel"; requests: RequestConfig[] }
  | { kind: "sleep"; ms: number };

/** Most requests of one `parallel` step (sent `http.maxConnectionsPerVu` at a time). */
export const MAX_PARALLEL_REQUESTS = 100;

const NAME = statsNameSchema;

const groupSchema = z.strictObject({ group: NAME, requests: z.lazy(() => stepsSchema) });
const repeatSchema = z.strictObject({
  repeat: z.int().min(1).max(1000),
  requests: z.lazy(() => stepsSchema),
});
/** A pause between two steps (`- sleep: 500ms`), besides any `thinkTime`. */
const sleepSchema = z.strictObject({ sleep: durationSchema });
/** Requests sent together, like a page and its assets; the step ends when all are answered. */
const parallelSchema = z.strictObject({
  parallel: z
    .array(requestSchema)
    .min(2, { error: "a parallel step sends at least 2 requests" })
    .max(MAX_PARALLEL_REQUESTS),
});

/**
 * A step: a request, a `group` (its own latency, first request sent to last answered), a
 * `repeat`, or a `parallel` list of requests sent together. The kind is chosen by its keys, so a bad request is reported field by field (a plain
 * union would only say that no kind matched).
 */
export const stepSchema: z.ZodType<Step, StepInput> = z.unknown().transform((value, ctx): Step => {
  const keys = value !== null && typeof value === "object" ? Object.keys(value) : [];
  /** The parsed value, or undefined after its issues were passed on. */
  const parse = <T>(schema: z.ZodType<T>): T | undefined => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      // The step's own schema knows which field a mistyped one was meant to be.
      if (issue.code === "unrecognized_keys") {
        const message = unknownFieldsMessage(issue.keys, fieldsAt(schema, issue.path));
        // `params.unknownKeys`: a scenario read again without them (parse-scenario.ts) finds them here.
        ctx.addIssue({ code: "custom", path: issue.path, message, params: { unknownKeys: issue.keys } });
      } else ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    }
    return undefined;
  };
  if (keys.includes("group")) {
    const g = parse(groupSchema);
    return g ? { kind: "group", group: g.group, steps: g.requests } : z.NEVER;
  }
  if (keys.includes("repeat")) {
    const r = parse(repeatSchema);
    return r ? { kind: "repeat", repeat: r.repeat, steps: r.requests } : z.NEVER;
  }
  if (keys.includes("parallel")) {
    const p = parse(parallelSchema);
    return p ? { kind: "parallel", requests: p.parallel } : z.NEVER;
  }
  if (keys.includes("sleep")) {
    const s = parse(sleepSchema);
    return s ? { kind: "sleep", ms: s.sleep } : z.NEVER;
  }
  const request = parse(requestSchema);
  return request ? { kind: "request", request } : z.NEVER;
}) as unknown as z.ZodType<Step, StepInput>;

export const stepsSchema: z.ZodType<Step[], StepInput[]> = z.lazy(() =>
  z.array(stepSchema).min(1, { error: "needs at least one request" }).max(500),
);

export const flowSchema = z.strictObject({
  name: NAME,
  /** Share of iterations: a flow of weight 3 runs three times as often as one of weight 1. */
  weight: z.int().min(1).max(1000).default(1),
  requests: stepsSchema,
});

/** What one iteration of a flow does, in order: repeats unrolled, groups as markers. */
export type ProgramOp =
  /** `repeat`: the turn of the innermost repeat the step is in (`{{repeat}}`); absent outside any. */
  | { op: "request"; index: number; repeat?: number }
  | { op: "parallel"; requests: number[]; repeat?: number }
  | { op: "sleep"; ms: number }
  | { op: "groupStart"; group: number }
  | { op: "groupEnd"; group: number };

export interface Flow {
  /** null for a scenario's plain `requests`. */
  name: string | null;
  weight: number;
  program: ProgramOp[];
}

/** The scenario's steps laid out for every consumer: requests in order with their source paths. */
export interface LaidOutSteps {
  requests: RequestConfig[];
  /** Where each request is in the scenario as written (for error messages). */
  requestPaths: Array<Array<string | number>>;
  /** The flow each request belongs to (null without flows). */
  requestFlows: Array<string | null>;
  /** The scenario (of `scenarios:`) each request belongs to (null for a single one). */
  requestScenarios: Array<string | null>;
  groups: string[];
  /** Where each group is first written (for error messages). */
  groupPaths: Array<Array<string | number>>;
  /** Each part's flows (one part without `scenarios:`). */
  partFlows: Flow[][];
  problems: Array<{ path: Array<string | number>; message: string }>;
}

/** What one part (the scenario itself, or one of `scenarios:`) writes. */
export interface WrittenPart {
  name: string | null;
  requests?: Step[];
  flows?: Array<z.output<typeof flowSchema>>;
  /** A scripted part: its VUs run this module's default export; it has no requests to lay out. */
  script?: string;
  /** Where the part is written ([] for the top level, ["scenarios", NAME] for one of them). */
  path: Array<string | number>;
}

/** Lays out each part's `requests` (or `flows`) into requests, groups and one program per flow. */
export function layOutSteps(parts: WrittenPart[]): LaidOutSteps {
  const out: LaidOutSteps = {
    requests: [],
    requestPaths: [],
    requestFlows: [],
    requestScenarios: [],
    groups: [],
    groupPaths: [],
    partFlows: [],
    problems: [],
  };
  for (const part of parts) {
    if (part.script !== undefined) {
      out.partFlows.push([]);
      continue;
    }
    const entries = part.flows
      ? part.flows.map((f, i) => ({
          name: f.name as string | null,
          weight: f.weight,
          steps: f.requests,
          path: [...part.path, "flows", i, "requests"],
        }))
      : [{ name: null, weight: 1, steps: part.requests ?? [], path: [...part.path, "requests"] }];
    const flows: Flow[] = [];
    for (const entry of entries) {
      const program: ProgramOp[] = [];
      const lay = (steps: Step[], path: Array<string | number>, depth: number, into: ProgramOp[]) => {
        if (depth > MAX_STEP_DEPTH) {
          out.problems.push({ path, message: `groups and repeats nest at most ${MAX_STEP_DEPTH} deep` });
          return;
        }
        steps.forEach((step, i) => {
          const at = [...path, i];
          const add = (request: RequestConfig, path: Array<string | number>): number => {
            out.requests.push(request);
            out.requestPaths.push(path);
            out.requestFlows.push(entry.name);
            out.requestScenarios.push(part.name);
            return out.requests.length - 1;
          };
          if (step.kind === "request") {
            into.push({ op: "request", index: add(step.request, at) });
          } else if (step.kind === "parallel") {
            into.push({
              op: "parallel",
              requests: step.requests.map((request, j) => add(request, [...at, "parallel", j])),
            });
          } else if (step.kind === "sleep") {
            into.push({ op: "sleep", ms: step.ms });
          } else if (step.kind === "group") {
            const name = scopedName(part.name, step.group);
            let group = out.groups.indexOf(name);
            if (group < 0) {
              group = out.groups.push(name) - 1;
              out.groupPaths.push([...at, "group"]);
            }
            into.push({ op: "groupStart", group });
            lay(step.steps, [...at, "requests"], depth + 1, into);
            into.push({ op: "groupEnd", group });
          } else {
            const body: ProgramOp[] = [];
            lay(step.steps, [...at, "requests"], depth + 1, body);
            for (let n = 0; n < step.repeat && into.length <= MAX_PROGRAM_LENGTH; n++) {
              // Each turn's steps know their turn; an inner repeat's own turn stays the one they read.
              for (const op of body) {
                into.push(
                  (op.op === "request" || op.op === "parallel") && op.repeat === undefined
                    ? { ...op, repeat: n }
                    : op,
                );
              }
            }
          }
        });
      };
      lay(entry.steps, entry.path, 1, program);
      let sends = 0;
      for (const op of program)
        sends += op.op === "parallel" ? op.requests.length : op.op === "request" ? 1 : 0;
      if (program.length > MAX_PROGRAM_LENGTH || sends > MAX_PROGRAM_LENGTH) {
        out.problems.push({
          path: entry.path,
          message: `one iteration would send more than ${MAX_PROGRAM_LENGTH} requests (repeats unrolled)`,
        });
      }
      flows.push({ name: entry.name, weight: entry.weight, program });
    }
    out.partFlows.push(flows);
  }
  return out;
}
