import { z } from "zod";

/** Worker → master: the worker's threads are ready and wait for the scheduled start. */
export const runAcceptedSchema = z.strictObject({
  type: z.literal("run-accepted"),
  runId: z.string().max(64),
});
export type RunAccepted = z.infer<typeof runAcceptedSchema>;
