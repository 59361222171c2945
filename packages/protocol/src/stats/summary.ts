import { z } from "zod";
import { ERROR_KINDS } from "./request-stats.js";

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

export const totalsSummarySchema = z.object({
  requests: z.number(),
  failures: z.number(),
  dropped: z.number(),
  rps: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  latencyMs: latencySummarySchema,
});
export type TotalsSummary = z.infer<typeof totalsSummarySchema>;

export const requestSummarySchema = totalsSummarySchema.extend({ name: z.string(), method: z.string() });
export type RequestSummary = z.infer<typeof requestSummarySchema>;

/** The `summary` of a run report, as the contract gives it. */
export const runSummarySchema = z.object({
  total: totalsSummarySchema,
  requests: z.array(requestSummarySchema),
  statusCodes: z.record(z.string(), z.number()),
  errors: z.array(
    z.object({
      kind: z.enum(ERROR_KINDS),
      message: z.string(),
      count: z.number(),
      request: z.string().optional(),
    }),
  ),
  /** Seconds of measured load the rates are computed over. */
  durationS: z.number(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;
