import { z } from "zod";

/** Worker → master: a clock probe; the master answers with clock-pong at once. */
export const clockPingSchema = z.strictObject({ type: z.literal("clock-ping"), id: z.int(), t0: z.number() });
export type ClockPing = z.infer<typeof clockPingSchema>;

/** Master → worker: the probe echoed with the master's clock. */
export const clockPongSchema = z.strictObject({
  type: z.literal("clock-pong"),
  id: z.int(),
  t0: z.number(),
  serverTime: z.number(),
});
export type ClockPong = z.infer<typeof clockPongSchema>;
