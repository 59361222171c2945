/** Deepest nesting of objects and arrays accepted from outside (a request body in a scenario). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests objects or arrays more than `limit` levels deep. Iterative, so an
 * attacker's 100,000-deep document cannot overflow the stack here (or later in JSON.stringify).
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
