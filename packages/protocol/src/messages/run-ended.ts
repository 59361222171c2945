import { z } from "zod";
import { runIdSchema } from "../queues.js";

/** Worker → master: the slice is over and its final batch (seq `lastSeq`) is queued or buffered. */
export const runEndedSchema = z.strictObject({
  type: z.literal("run-ended"),
  runId: runIdSchema,
  lastSeq: z.int().min(0),
});
export type RunEnded = z.infer<typeof runEndedSchema>;
