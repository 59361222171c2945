import { z } from "zod";

/** Master → worker: disconnect and do not reconnect (the process of a local worker exits). */
export const retireSchema = z.strictObject({ type: z.literal("retire"), reason: z.string().max(500) });
export type Retire = z.infer<typeof retireSchema>;
