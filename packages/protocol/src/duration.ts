import { z } from "zod";

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)(us|ms|s|m|h)$/;
const COMPOUND_RE = /^(?:\d+(?:\.\d+)?(?:us|ms|s|m|h))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(us|ms|s|m|h)/g;

/**
 * Parses "500ms", "10s", "2m", "1h" or compounds such as "1m30s" into milliseconds.
 * Returns undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  const single = DURATION_RE.exec(trimmed);
  if (single) return Number(single[1]) * UNIT_MS[single[2]];
  if (!COMPOUND_RE.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(PART_RE)) total += Number(match[1]) * UNIT_MS[match[2]];
  return total;
}

/** Formats milliseconds as the shortest readable duration ("1m30s", "250ms"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let seconds = Math.round(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return `${hours ? `${hours}h` : ""}${minutes ? `${minutes}m` : ""}${seconds || (!hours && !minutes) ? `${seconds}s` : ""}`;
}

/** Longest duration a scenario may give (a year): anything longer is a typo, and overflows timers. */
export const MAX_DURATION_MS = 366 * 24 * 3_600_000;

/** A duration string, turned into milliseconds by validation. */
export const durationSchema = z
  .string({ error: 'expected a duration such as "500ms", "10s", "2m" or "1h"' })
  .max(100)
  .transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({
        code: "custom",
        message: `"${text}" is not a duration: use a number and a unit (us, ms, s, m, h), such as "10s"`,
      });
      return z.NEVER;
    }
    if (ms > MAX_DURATION_MS) {
      ctx.addIssue({
        code: "custom",
        message: `"${text}" is longer than a year (366 days), the longest a scenario may give`,
      });
      return z.NEVER;
    }
    return ms;
  });

/** A duration that must be longer than zero (a run's length, a timeout). */
export const positiveDurationSchema = durationSchema.refine((ms) => ms > 0, {
  error: "must be longer than 0",
});
