import { z } from "zod";

/** Worker → master: the worker could not start its slice (bad scenario, no threads, ...). */
export const runRejectedSchema = z.strictObject({
  type: z.literal("run-rejected"),
  runId: z.string().max(64),
  message: z.string().max(2000),
});
export type RunRejected = z.infer<typeof runRejectedSchema>;
