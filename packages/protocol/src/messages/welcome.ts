import { z } from "zod";

/** Master → worker after hello. */
export const welcomeSchema = z.strictObject({
  type: z.literal("welcome"),
  workerId: z.string(),
  serverTime: z.number(),
  heartbeatIntervalMs: z.int().min(100),
  /** Where workers push stats batches; null means "the REDIS_URL you were started with". */
  redisUrl: z.string().nullable(),
});
export type Welcome = z.infer<typeof welcomeSchema>;
