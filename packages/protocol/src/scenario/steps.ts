import { z } from "zod";
import { type RequestConfig, requestSchema, statsNameSchema } from "./request.js";

/** The `method` a group's statistics travel and are stored under (never an HTTP method). */
export const GROUP_METHOD = "GROUP";
/** The `method` of a scripted VU's `vu.check(name, ...)`: one evaluation per record, a failure per false. */
export const CHECK_METHOD = "CHECK";
/** The `method` a script's uncaught errors are counted under (one per iteration it ended). */
export const SCRIPT_METHOD = "SCRIPT";

/** Whether statistics of this method are requests (groups, checks and script errors are not). */
export function isRequestMethod(method: string): boolean {
  return method !== GROUP_METHOD && method !== CHECK_METHOD && method !== SCRIPT_METHOD;
}

/** Deepest nesting of groups and repeats. */
export const MAX_STEP_DEPTH = 4;
/** Most requests one iteration of a flow sends once its repeats are unrolled. */
export const MAX_PROGRAM_LENGTH = 10_000;

export type StepInput =
  | z.input<typeof requestSchema>
  | { group: string; requests: StepInput[] }
  | { repeat: number; requests: StepInput[] };

type Step =
  | { kind: "request"; request: RequestConfig }
  | { kind: "group"; group: string; steps: Step[] }
  | { kind: "repeat"; repeat: number; steps: Step[] };

const NAME = statsNameSchema;

const groupSchema = z.strictObject({ group: NAME, requests: z.lazy(() => stepsSchema) });
const repeatSchema = z.strictObject({
  repeat: z.int().min(1).max(1000),
  requests: z.lazy(() => stepsSchema),
});

/**
 * A step: a request, a `group` (its own latency, first request sent to last answered) or a
 * `repeat`. The kind is chosen by its keys, so a bad request is reported field by field (a plain
 * union would only say that no kind matched).
 */
export const stepSchema: z.ZodType<Step, StepInput> = z.unknown().transform((value, ctx): Step => {
  const keys = value !== null && typeof value === "object" ? Object.keys(value) : [];
  /** The parsed value, or undefined after its issues were passed on. */
  const parse = <T>(schema: z.ZodType<T>): T | undefined => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
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
  | { op: "request"; index: number }
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
          if (step.kind === "request") {
            into.push({ op: "request", index: out.requests.length });
            out.requests.push(step.request);
            out.requestPaths.push(at);
            out.requestFlows.push(entry.name);
            out.requestScenarios.push(part.name);
          } else if (step.kind === "group") {
            let group = out.groups.indexOf(step.group);
            if (group < 0) {
              group = out.groups.push(step.group) - 1;
              out.groupPaths.push([...at, "group"]);
            }
            into.push({ op: "groupStart", group });
            lay(step.steps, [...at, "requests"], depth + 1, into);
            into.push({ op: "groupEnd", group });
          } else {
            const body: ProgramOp[] = [];
            lay(step.steps, [...at, "requests"], depth + 1, body);
            for (let n = 0; n < step.repeat && into.length <= MAX_PROGRAM_LENGTH; n++) into.push(...body);
          }
        });
      };
      lay(entry.steps, entry.path, 1, program);
      if (program.length > MAX_PROGRAM_LENGTH) {
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
