import { z } from "zod";
import { durationSchema, positiveDurationSchema } from "../duration.js";
import { CONTROL_RE, statsNameSchema } from "./text-rules.js";

/**
 * A step on an open WebSocket of a `ws:` request: send a message, await one that contains a text
 * (a timed exchange, recorded under its name), pause, or close.
 */
export const wsStepSchema = z.union(
  [
    z.strictObject({ send: z.string().max(1_048_576) }),
    z.strictObject({
      /** A text the awaited message contains; earlier messages that do not are skipped. */
      expect: z.string().min(1).max(10_000),
      /** The exchange's name (send → matching message). @defaultValue "NAME.reply" */
      name: statsNameSchema.optional(),
      /** @defaultValue the request's (or the scenario's) timeout */
      timeout: positiveDurationSchema.optional(),
    }),
    z.strictObject({ sleep: durationSchema }),
    z.strictObject({ close: z.literal(true) }),
  ],
  { error: "a step is { send }, { expect, name, timeout }, { sleep } or { close: true }" },
);
export type WsStep = z.output<typeof wsStepSchema>;

/** `ws:` — a path on the target (ws:// or wss:// as the target is http or https) or a ws(s):// URL. */
export const wsTargetSchema = z
  .string()
  .max(8192)
  .regex(/^(\/|wss?:\/\/[^/{}\s?#]+(\/|$))/, {
    error:
      'ws must be a path on the target ("/chat") or a ws:// or wss:// URL, with templates only after the host',
  })
  .refine((text) => !CONTROL_RE.test(text), { error: "percent-encode control characters in ws" });

/** Fields of a request that a `ws:` request does not take, and why. */
export const NOT_FOR_WS: Readonly<Record<string, string>> = {
  path: "a ws request takes ws, not path",
  url: "a ws request takes ws, not url",
  body: "a ws request has no body: send messages in its steps",
  json: "a ws request has no body: send messages in its steps",
  form: "a ws request has no body: send messages in its steps",
  multipart: "a ws request has no body: send messages in its steps",
  capture: "a ws request captures nothing: await messages with expect steps",
  expect: "a ws request's answers are awaited with expect steps",
  stream: "a ws request's messages are awaited with expect steps, not as a stream",
};

/** The name an expect step's exchange is recorded under. */
export function wsExchangeName(requestName: string, step: { name?: string }): string {
  return step.name ?? `${requestName}.reply`;
}

/** What a `ws:` request (or `steps` without one) has that it must not, field by field. */
export function wsRequestProblems(
  request: Record<string, unknown>,
): Array<{ field: string; message: string }> {
  if (request.ws === undefined) return [{ field: "steps", message: "steps go with ws: a WebSocket request" }];
  const problems = Object.entries(NOT_FOR_WS)
    .filter(([field]) => request[field] !== undefined)
    .map(([field, message]) => ({ field, message }));
  if (request.method !== "GET") problems.push({ field: "method", message: "a ws request opens with GET" });
  return problems;
}
