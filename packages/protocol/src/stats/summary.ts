import { z } from "zod";
import { capacityResultSchema } from "../scenario/capacity.js";
import { metricSummarySchema } from "./custom-metrics.js";
import { ERROR_KINDS } from "./request-stats.js";
import { slowTraceSchema } from "./traces.js";

/** Latency figures of a summary, in milliseconds. */
export const latencySummarySchema = z.object({
  min: z.number(),
  mean: z.number(),
  max: z.number(),
  p50: z.number(),
  p75: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  p999: z.number(),
});
export type LatencySummary = z.infer<typeof latencySummarySchema>;

/** The latency figures in the order every report shows them, with their column labels. */
export const LATENCY_COLUMNS: ReadonlyArray<{ key: keyof LatencySummary; label: string }> = [
  { key: "min", label: "min" },
  { key: "mean", label: "mean" },
  { key: "p50", label: "p50" },
  { key: "p75", label: "p75" },
  { key: "p90", label: "p90" },
  { key: "p95", label: "p95" },
  { key: "p99", label: "p99" },
  { key: "p999", label: "p99.9" },
  { key: "max", label: "max" },
];

export const totalsSummarySchema = z.object({
  requests: z.number(),
  failures: z.number(),
  /** Of `requests`, redirect hops followed (judged on their chain's final answer). Absent: none. */
  redirects: z.number().optional(),
  dropped: z.number(),
  /** Iterations that ran to their end (a failed request or a script error included). */
  iterations: z.number().optional(),
  /** Their durations, start to end, in ms. */
  iterationMs: latencySummarySchema.optional(),
  /** Planned iterations that could not start: a unique feeder ran out. Absent: none. */
  skippedIterations: z.number().optional(),
  rps: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  latencyMs: latencySummarySchema,
});
export type TotalsSummary = z.infer<typeof totalsSummarySchema>;

const phasePercentilesSchema = z.object({ p50: z.number(), p95: z.number(), p99: z.number() });

export const requestSummarySchema = totalsSummarySchema.extend({
  name: z.string(),
  method: z.string(),
  /** The flow the request belongs to, in a scenario with flows. */
  flow: z.string().optional(),
  /** The scenario (of `scenarios:`) the request belongs to. */
  scenario: z.string().optional(),
  /**
   * A streamed response's timings (percentiles over every stream, merged exactly): to its first
   * byte and first event, and the gaps between events; its events in all and per stream.
   */
  stream: z
    .object({
      firstByteMs: latencySummarySchema,
      firstEventMs: latencySummarySchema,
      gapMs: latencySummarySchema,
      events: z.number(),
      eventsPerStream: z.number(),
    })
    .optional(),
  /**
   * Where the requests' time went (Volley's HTTP/1.1 client): connecting (0 on a reused
   * connection), TLS, and waiting for the first byte once sent, p50/p95/p99 in ms, so "the server
   * is slow" and "connections are slow" read apart. Absent: none timed.
   */
  timings: z
    .object({
      count: z.number(),
      connectMs: phasePercentilesSchema,
      tlsMs: phasePercentilesSchema,
      waitingMs: phasePercentilesSchema,
    })
    .optional(),
  /** The slowest requests of the run (or window) with their trace ids (`http.tracing`), slowest first. */
  slowest: z.array(slowTraceSchema).optional(),
  /** A WebSocket handshake's name: the messages and bytes its sockets carried both ways. */
  ws: z
    .object({
      messagesSent: z.number(),
      messagesReceived: z.number(),
      bytesIn: z.number(),
      bytesOut: z.number(),
    })
    .optional(),
});
export type RequestSummary = z.infer<typeof requestSummarySchema>;

/** The `summary` of a run report, as the contract gives it. */
export const runSummarySchema = z.object({
  total: totalsSummarySchema,
  requests: z.array(requestSummarySchema),
  /** Each of `scenarios:` as a whole: its requests merged (exact percentiles). */
  scenarios: z.array(totalsSummarySchema.extend({ name: z.string() })).optional(),
  /** Groups (method "GROUP"): one latency per group run, first request sent to last answered. */
  groups: z.array(requestSummarySchema).optional(),
  /**
   * Checks: named pass/fail counts. A declarative request with `expect` is a check of its name
   * (passes: answers that met every expectation; fails: the rest, unanswered included).
   */
  checks: z.array(z.object({ name: z.string(), passes: z.number(), fails: z.number() })).optional(),
  /** A script's own metrics (`vu.metrics`), by name. Absent: none recorded. */
  metrics: z.record(z.string(), metricSummarySchema).optional(),
  statusCodes: z.record(z.string(), z.number()),
  errors: z.array(
    z.object({
      kind: z.enum(ERROR_KINDS),
      message: z.string(),
      count: z.number(),
      request: z.string().optional(),
      /** Trace ids of some of these failures (`http.tracing`), up to 5. */
      traceIds: z.array(z.string()).optional(),
    }),
  ),
  /** Seconds of measured load the rates are computed over. */
  durationS: z.number(),
  /** A capacity-search run's result: each judged step and the rate it sustains. */
  capacity: capacityResultSchema.optional(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;
