import { z } from "zod";
import { runIdSchema } from "../queues.js";

/** Worker → master: the worker's threads are ready and wait for the scheduled start. */
export const runAcceptedSchema = z.strictObject({
  type: z.literal("run-accepted"),
  runId: runIdSchema,
});
export type RunAccepted = z.infer<typeof runAcceptedSchema>;
