import { z } from "zod";
import { partitionIdSchema, redisUrlSchema, runIdSchema } from "../queues.js";

/**
 * Master → worker: from now on, push the run's batches through this aggregator partition (null:
 * straight into the run's queue). Sent when the worker's aggregator stopped beating.
 */
export const statsRouteSchema = z.strictObject({
  type: z.literal("stats-route"),
  runId: runIdSchema,
  aggregator: partitionIdSchema.nullable(),
  /** The Redis of that partition's stream, when it is not the master's. */
  aggregatorRedis: redisUrlSchema.optional(),
});
export type StatsRoute = z.infer<typeof statsRouteSchema>;
