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
