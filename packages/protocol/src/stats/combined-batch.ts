import { z } from "zod";
import { partitionIdSchema, runIdSchema } from "../queues.js";
import { requestStatsSchema } from "./request-stats.js";

/**
 * One worker batch a combined batch covers: what the master tracks per worker (the seq for
 * exactly-once, the final flag, the counts the worker's row shows), without its histograms.
 */
export const coveredBatchSchema = z.strictObject({
  workerId: z.string().min(1).max(64),
  seq: z.int().min(0),
  final: z.boolean(),
  vus: z.int().min(0),
  lostBatches: z.int().min(0),
  elapsedMs: z.number().min(0),
  /** Requests of the batch (request methods only: group runs, checks and script errors are not). */
  requests: z.int().min(0),
});
export type CoveredBatch = z.infer<typeof coveredBatchSchema>;

/** Most worker batches one combined batch covers (a partition's workers for one second). */
export const MAX_COVERED_BATCHES = 20_000;

/**
 * An aggregator's merge of its workers' batches for one second of a run: the measurements added
 * up once (one set of histograms, whatever the number of workers) and the (worker, seq) of every
 * batch it covers. `group` is unique within the run; every group an aggregator sends covers
 * batches no other group covers, so the master merges a group whole or recognises it as merged.
 */
export const combinedBatchSchema = z.strictObject({
  runId: runIdSchema,
  partition: partitionIdSchema,
  group: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/),
  second: z.int().min(0),
  covers: z.array(coveredBatchSchema).min(1).max(MAX_COVERED_BATCHES),
  /** Sum of the covered batches' VUs. */
  vus: z.int().min(0),
  dropped: z.int().min(0),
  requests: z.array(requestStatsSchema).max(500),
  sentAt: z.number(),
});
export type CombinedBatch = z.infer<typeof combinedBatchSchema>;
