import { z } from "zod";

/** Worker → master: the slice is over and its final batch (seq `lastSeq`) is queued or buffered. */
export const runEndedSchema = z.strictObject({
  type: z.literal("run-ended"),
  runId: z.string().max(64),
  lastSeq: z.int().min(0),
});
export type RunEnded = z.infer<typeof runEndedSchema>;
