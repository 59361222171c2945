import { z } from "zod";
import { partitionStepSchema } from "../plan/partition.js";
import { runIdSchema } from "../queues.js";

/** Master → worker: run your slice of this scenario, starting at `startAt` (master clock, epoch ms). */
export const startRunSchema = z.strictObject({
  type: z.literal("start-run"),
  runId: runIdSchema,
  /** The scenario as the user wrote it; the worker validates it with the same schema. */
  scenario: z.unknown(),
  partition: z.array(partitionStepSchema).max(4),
  startAt: z.number(),
});
export type StartRun = z.infer<typeof startRunSchema>;
