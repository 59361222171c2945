import { type StatusRange, statusExpectationSchema } from "@volley/protocol";

/** Distinct values remembered per thread; a script that makes more has the rest parsed each time. */
const MAX_REMEMBERED = 256;
const remembered = new Map<string | number, readonly StatusRange[]>();

/**
 * A script's `expect.status` as inclusive ranges (the scenario's own rules: 200, [200, 201],
 * "2xx", "200-299"). A script passes the same literal on every call: each distinct value is
 * validated once per thread, not on every request; a bad one throws every time.
 */
export function statusExpectation(value: unknown): readonly StatusRange[] {
  const key = keyOf(value);
  const known = key === null ? undefined : remembered.get(key);
  if (known !== undefined) return known;
  const ranges: readonly StatusRange[] = statusExpectationSchema.parse(value);
  if (key !== null && remembered.size < MAX_REMEMBERED) remembered.set(key, ranges);
  return ranges;
}

/** Numbers, strings and short lists of them have a key; anything else is parsed each time. */
function keyOf(value: unknown): string | number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") return `s${value}`;
  if (!Array.isArray(value) || value.length > 16) return null;
  for (const item of value) if (typeof item !== "number" && typeof item !== "string") return null;
  return `a${JSON.stringify(value)}`;
}
