import { z } from "zod";
import { runIdSchema } from "../queues.js";

/** Master → worker: stop the run gracefully (in-flight iterations get gracefulStop to finish). */
export const stopRunSchema = z.strictObject({ type: z.literal("stop-run"), runId: runIdSchema });
export type StopRun = z.infer<typeof stopRunSchema>;
