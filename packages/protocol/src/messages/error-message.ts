import { z } from "zod";

/** Master → worker or dashboard: the last message was refused. */
export const errorMessageSchema = z.strictObject({
  type: z.literal("error"),
  code: z.string(),
  message: z.string(),
});
export type ErrorMessage = z.infer<typeof errorMessageSchema>;
