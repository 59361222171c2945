import { z } from "zod";
import { STATUS_KEY_RE } from "../grpc/grpc-status.js";
import { MAX_STATS_NAME } from "../scenario/scoped-names.js";
import { isRequestMethod } from "../scenario/steps.js";
import { gaugeStatsSchema } from "./custom-metrics.js";
import { slowestTextSchema } from "./slowest-text.js";
import { MAX_ERROR_TRACES, traceIdSchema } from "./traces.js";

/** How a request failed. `status` and `expect` are responses that did not meet expectations. */
export const ERROR_KINDS = [
  "timeout",
  "connect",
  /** The host name did not resolve (or resolved to no address). */
  "dns",
  "reset",
  "status",
  "expect",
  "aborted",
  "protocol",
  "script",
  /** A WebSocket closed while a message was awaited on it. */
  "closed",
  "other",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

const count = z.number().int().min(0);

/**
 * A worker sends a request name's phases (`timings`) once every this many seconds, and in its
 * final batch: they only feed the run's percentiles, and sent every second they made the master
 * read a quarter more per batch. A batch's phases cover at most this many seconds of requests.
 */
export const PHASES_PERIOD_S = 10;

export const errorCountSchema = z.strictObject({
  kind: z.enum(ERROR_KINDS),
  /** One sample message of this kind (the first seen). */
  message: z.string().max(500),
  count,
  /** Trace ids of some of these failures (`http.tracing`). Absent: none. */
  traceIds: z.array(traceIdSchema).max(MAX_ERROR_TRACES).optional(),
});
export type ErrorCount = z.infer<typeof errorCountSchema>;

/**
 * Why `value` is not a statistic's status codes, or null: a plain object whose keys are HTTP
 * statuses (three digits) or gRPC statuses (grpc:NAME), each a count. By hand, not z.record: the
 * record built a copy key by key, a third of the time the master spent checking a request entry.
 */
function statusCodesProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not an object";
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return "is not a plain object";
  const codes = value as Record<string, unknown>;
  for (const key in codes) {
    if (!STATUS_KEY_RE.test(key)) return `has "${key.slice(0, 40)}", not an HTTP status or grpc:NAME`;
    const n = codes[key];
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) return `"${key}" is not a count`;
  }
  return null;
}

function statusCodesSchema() {
  return z.custom<Record<string, number>>().superRefine((value, ctx) => {
    const problem = statusCodesProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
}

/** Latency of a period: exact sum/min/max plus an HDR histogram (microseconds, sparse-encoded). */
export const latencyStatsSchema = z.strictObject({
  sumUs: z.number().min(0),
  minUs: z.number().min(0),
  maxUs: z.number().min(0),
  histogram: z.string().max(1_000_000),
});
export type LatencyStats = z.infer<typeof latencyStatsSchema>;

/** What one request name did in one period (a second, or a whole run). */
export const requestStatsSchema = z.strictObject({
  name: z.string().max(MAX_STATS_NAME),
  method: z.string().max(16),
  requests: count,
  failures: count,
  /**
   * Of `requests`, the redirect hops followed on the way to a final answer: each a request (timed,
   * counted, in its status codes), none judged (expectations and checks judge the final answer
   * only). Absent: none.
   */
  redirects: count.optional(),
  /**
   * WebSocket messages sent and received on the sockets opened under this name (a handshake's
   * name), in the period they went. They are not requests: a second may carry messages and no
   * request. Absent: none.
   */
  messagesSent: count.optional(),
  messagesReceived: count.optional(),
  bytesIn: count,
  bytesOut: count,
  /** By HTTP status (`"200"`) or gRPC status (`"grpc:OK"`). */
  statusCodes: statusCodesSchema(),
  errors: z.array(errorCountSchema).max(200),
  latency: latencyStatsSchema,
  /**
   * How long the timed requests (Volley's HTTP/1.1 client) took to connect, to finish TLS and to
   * get their first byte: HDR histograms of their own shape (see PhaseTimings in @volley/stats),
   * 0 for the connect and TLS of a reused connection; the requests timed since the worker last
   * sent them (every PHASES_PERIOD_S seconds, and in its final batch). Absent: none this batch.
   */
  timings: z
    .strictObject({
      count,
      connect: z.string().max(100_000),
      tls: z.string().max(100_000),
      waiting: z.string().max(100_000),
    })
    .optional(),
  /**
   * The period's slowest requests with their trace ids (`http.tracing`), slowest first, as text
   * (see slowest-text.ts: encodeSlowest, decodeSlowest). Absent: none.
   */
  slowest: slowestTextSchema.optional(),
  /** A script's gauge (method GAUGE): its last, lowest and highest value. Absent otherwise. */
  gauge: gaugeStatsSchema.optional(),
});
export type RequestStats = z.infer<typeof requestStatsSchema>;

/**
 * Requests among a batch's statistics: group runs, checks and script errors are not requests.
 * A worker's count on the master and in an aggregator's group are both this.
 */
export function requestCount(stats: readonly Pick<RequestStats, "method" | "requests">[]): number {
  let requests = 0;
  for (const entry of stats) if (isRequestMethod(entry.method)) requests += entry.requests;
  return requests;
}
