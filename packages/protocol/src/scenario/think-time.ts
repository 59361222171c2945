import { z } from "zod";
import { durationSchema } from "../duration.js";

/** The pause after each request, in milliseconds. */
export type ThinkTime =
  | { kind: "uniform"; minMs: number; maxMs: number }
  | { kind: "normal"; meanMs: number; stddevMs: number }
  | { kind: "exponential"; meanMs: number };

export const NO_THINK_TIME: ThinkTime = { kind: "uniform", minMs: 0, maxMs: 0 };

const THINK_RANGE_RE = /^\s*(\S+?)\s*\.\.\s*(\S+)\s*$/;

const thinkTextSchema = z.string().transform((text, ctx): ThinkTime => {
  const range = THINK_RANGE_RE.exec(text);
  const [minText, maxText] = range ? [range[1], range[2]] : [text, text];
  const minMs = durationSchema.safeParse(minText);
  const maxMs = durationSchema.safeParse(maxText);
  if (!minMs.success || !maxMs.success || minMs.data > maxMs.data) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a think time: use "500ms" or "100ms..2s"` });
    return z.NEVER;
  }
  return { kind: "uniform", minMs: minMs.data, maxMs: maxMs.data };
});

/*
 * `thinkTime`: a duration, "min..max" (uniform), or a distribution:
 * `{ distribution: uniform, min, max }`, `{ distribution: normal, mean, stddev }` (cut at 0 and at
 * mean + 4 stddev), `{ distribution: exponential, mean }` (cut at 10 x mean).
 */
const distributionSchema = z.discriminatedUnion(
  "distribution",
  [
    z
      .strictObject({ distribution: z.literal("uniform"), min: durationSchema, max: durationSchema })
      .refine((t) => t.min <= t.max, { error: "min must not exceed max", path: ["max"] }),
    z.strictObject({ distribution: z.literal("normal"), mean: durationSchema, stddev: durationSchema }),
    z.strictObject({ distribution: z.literal("exponential"), mean: durationSchema }),
  ],
  { error: "distribution must be uniform, normal or exponential" },
);

export const thinkTimeSchema: z.ZodType<ThinkTime, ThinkTimeInput> = z
  .unknown()
  .transform((value, ctx): ThinkTime => {
    // Text or a distribution, chosen by type so each gets its own precise messages.
    const schema = typeof value === "string" ? thinkTextSchema : distributionSchema;
    const result = schema.safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }
    const t = result.data;
    if (typeof value === "string") return t as ThinkTime;
    const d = t as z.output<typeof distributionSchema>;
    switch (d.distribution) {
      case "uniform":
        return { kind: "uniform", minMs: d.min, maxMs: d.max };
      case "normal":
        return { kind: "normal", meanMs: d.mean, stddevMs: d.stddev };
      case "exponential":
        return { kind: "exponential", meanMs: d.mean };
    }
  }) as unknown as z.ZodType<ThinkTime, ThinkTimeInput>;

/** `thinkTime` as written. */
export type ThinkTimeInput =
  | string
  | { distribution: "uniform"; min: string; max: string }
  | { distribution: "normal"; mean: string; stddev: string }
  | { distribution: "exponential"; mean: string };

/** One pause drawn from the distribution (0 for none). */
export function drawThinkTime(think: ThinkTime, random: () => number = Math.random): number {
  switch (think.kind) {
    case "uniform":
      return think.maxMs > 0 ? think.minMs + random() * (think.maxMs - think.minMs) : 0;
    case "normal": {
      // Box-Muller; bounded so one draw cannot stall a VU.
      const u = 1 - random();
      const v = random();
      const z0 = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
      return Math.min(Math.max(0, think.meanMs + z0 * think.stddevMs), think.meanMs + 4 * think.stddevMs);
    }
    case "exponential":
      return Math.min(-Math.log(1 - random()) * think.meanMs, 10 * think.meanMs);
  }
}

/** Whether the distribution ever pauses. */
export function hasThinkTime(think: ThinkTime): boolean {
  return think.kind === "uniform" ? think.maxMs > 0 : think.meanMs > 0;
}
