import { z } from "zod";
import { runIdSchema } from "../queues.js";

/** Worker → master: the worker could not start its slice (bad scenario, no threads, ...). */
export const runRejectedSchema = z.strictObject({
  type: z.literal("run-rejected"),
  runId: runIdSchema,
  message: z.string().max(2000),
});
export type RunRejected = z.infer<typeof runRejectedSchema>;
