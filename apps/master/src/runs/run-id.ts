import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

/**
 * A run id that sorts by creation time as text (history pages by id), readable in URLs:
 * 9 base-36 characters of milliseconds, 2 of a same-millisecond counter, 5 random.
 */
export function newRunId(now = Date.now()): string {
  counter = now === lastMs ? counter + 1 : 0;
  lastMs = now;
  const random = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, "0").slice(0, 5);
  return `${now.toString(36).padStart(9, "0")}${counter.toString(36).padStart(2, "0")}${random}`;
}
