import { z } from "zod";
import { runIdSchema } from "../queues.js";
import { requestStatsSchema } from "./request-stats.js";

/**
 * One worker's measurements for one second of a run: the unit that travels through the queue.
 * `seq` counts a worker's batches of a run from 0 without gaps; the batch with `final` is the last.
 */
export const statsBatchSchema = z.strictObject({
  runId: runIdSchema,
  workerId: z.string().min(1).max(64),
  seq: z.int().min(0),
  /** Second of the run the batch describes (0 = the first second after the scheduled start). */
  second: z.int().min(0),
  final: z.boolean(),
  /** Most VUs active at once during the second. */
  vus: z.int().min(0),
  /** Iterations that found no free VU (arrival-rate executors). */
  dropped: z.int().min(0),
  /** Batches the worker discarded since its previous batch because Redis stayed away too long. */
  lostBatches: z.int().min(0),
  /** Milliseconds since the scheduled start when the batch was cut (the final one: the slice's length). */
  elapsedMs: z.number().min(0),
  requests: z.array(requestStatsSchema).max(500),
  sentAt: z.number(),
});
export type StatsBatch = z.infer<typeof statsBatchSchema>;
