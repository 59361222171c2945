import { z } from "zod";
import { STATUS_KEY_RE } from "../grpc/grpc-status.js";

/**
 * W3C trace context (`http.tracing`): each request sends a `traceparent` with a trace id of its
 * own; the statistics keep, per request name and period, the slowest requests' trace ids and
 * some of the failures', so a spike or an error leads to its trace in the traced system.
 */
export const TRACE_ID_RE = /^[0-9a-f]{32}$/;
/** Slowest requests kept per request name and period (a second, a window, a run). */
export const MAX_SLOWEST = 5;
/** Failures' trace ids kept per error (kind and message) and period. */
export const MAX_ERROR_TRACES = 5;

export const traceIdSchema = z.string().regex(TRACE_ID_RE, "is not a trace id (32 lower-case hex digits)");

/**
 * One of the slowest requests: its trace id, latency, when it ended (ms since the epoch) and its
 * status (as `statusCodes` keys it: "200", "grpc:OK"; "0" when no answer came).
 */
export const slowTraceSchema = z.strictObject({
  traceId: traceIdSchema,
  ms: z.number().min(0),
  at: z.number().min(0),
  status: z.string().refine((s) => s === "0" || STATUS_KEY_RE.test(s), "is not a status"),
});
export type SlowTrace = z.infer<typeof slowTraceSchema>;

const SLOW_TRACE_KEYS = 4;

/**
 * Why a batch's `slowest` is not a list of at most MAX_SLOWEST slow traces (each as
 * slowTraceSchema says), or null. By hand: a batch carries one list per request name, and the
 * master read each through zod at a twentieth of its CPU per batch; this allocates nothing.
 */
export function slowTraceListProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return "is not a list";
  if (value.length > MAX_SLOWEST) return `holds more than ${MAX_SLOWEST}`;
  for (let i = 0; i < value.length; i++) {
    const trace = value[i] as Record<string, unknown> | null;
    if (typeof trace !== "object" || trace === null || Array.isArray(trace)) return `${i} is not an object`;
    let keys = 0;
    for (const _ in trace) keys++;
    if (keys !== SLOW_TRACE_KEYS) return `${i} must hold traceId, ms, at and status only`;
    const { traceId, ms, at, status } = trace;
    if (typeof traceId !== "string" || !TRACE_ID_RE.test(traceId)) return `${i}.traceId is not a trace id`;
    if (typeof ms !== "number" || !(ms >= 0) || ms === Number.POSITIVE_INFINITY)
      return `${i}.ms is not a latency`;
    if (typeof at !== "number" || !(at >= 0) || at === Number.POSITIVE_INFINITY)
      return `${i}.at is not a time`;
    if (typeof status !== "string" || (status !== "0" && !STATUS_KEY_RE.test(status)))
      return `${i}.status is not a status`;
  }
  return null;
}

/** A batch's slowest list (see slowTraceListProblem). */
export const slowTraceListSchema = z.custom<SlowTrace[]>().superRefine((value, ctx) => {
  const problem = slowTraceListProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** The slowest of both lists, slowest first (ties by trace id, so any merge order agrees). */
export function mergeSlowest(a: readonly SlowTrace[], b: readonly SlowTrace[]): SlowTrace[] {
  // Both are slowest first: a merge of two short lists, no sort (the master does this per name
  // and batch).
  const merged: SlowTrace[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < MAX_SLOWEST && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && slower(a[i], b[j]))) merged.push(a[i++]);
    else merged.push(b[j++]);
  }
  return merged;
}

function slower(x: SlowTrace, y: SlowTrace): boolean {
  return x.ms > y.ms || (x.ms === y.ms && x.traceId <= y.traceId);
}

/** Both lists' trace ids, the first MAX_ERROR_TRACES distinct ones. */
export function mergeTraceIds(a: readonly string[], b: readonly string[]): string[] {
  const ids = [...a];
  for (const id of b) {
    if (ids.length >= MAX_ERROR_TRACES) break;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** `http.tracing`: propagate W3C trace context, a share sampled, and where a trace is seen. */
export const tracingSettingsSchema = z.strictObject({
  propagate: z.literal("w3c", { error: 'propagate must be "w3c"' }),
  /** Share of requests sent with the sampled flag (0..1). @defaultValue 1 */
  sample: z.number().min(0).max(1).default(1),
  /** A trace's page in the traced system: an http(s) URL with `{traceId}` in it. */
  linkTemplate: z
    .string()
    .max(2000)
    .refine((t) => /^https?:\/\/[^\s]+$/.test(t) && t.includes("{traceId}"), {
      message: 'must be an http(s) URL with {traceId} in it, e.g. "https://tempo.example/trace/{traceId}"',
    })
    .optional(),
});
export type TracingSettings = z.output<typeof tracingSettingsSchema>;

/** A run's `http.tracing.linkTemplate` as written in its scenario, when it has one. */
export function traceLinkTemplate(scenario: { http?: unknown }): string | undefined {
  const tracing = (scenario.http as { tracing?: { linkTemplate?: unknown } } | undefined)?.tracing;
  return typeof tracing?.linkTemplate === "string" ? tracing.linkTemplate : undefined;
}

/** A trace's link through the scenario's `linkTemplate`, or null without one. */
export function traceLink(template: string | undefined, traceId: string): string | null {
  return template ? template.replaceAll("{traceId}", traceId) : null;
}
