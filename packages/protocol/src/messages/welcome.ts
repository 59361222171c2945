import { z } from "zod";

/** Master → worker after hello. */
export const welcomeSchema = z.strictObject({
  type: z.literal("welcome"),
  workerId: z.string(),
  serverTime: z.number(),
  heartbeatIntervalMs: z.int().min(100),
  /** Where workers push stats batches; null means "the REDIS_URL you were started with". */
  redisUrl: z.string().nullable(),
  /** Key prefix of the stats queue in Redis. */
  queuePrefix: z.string().min(1).max(100),
});
export type Welcome = z.infer<typeof welcomeSchema>;
