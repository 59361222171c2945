import { z } from "zod";

/** Master → worker: stop the run gracefully (in-flight iterations get gracefulStop to finish). */
export const stopRunSchema = z.strictObject({ type: z.literal("stop-run"), runId: z.string().max(64) });
export type StopRun = z.infer<typeof stopRunSchema>;
