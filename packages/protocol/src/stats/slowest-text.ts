import { z } from "zod";
import { GRPC_STATUS_NAMES } from "../grpc/grpc-status.js";
import { MAX_SLOWEST, type SlowTrace } from "./traces.js";

/**
 * A period's slowest requests as batches and stored seconds carry them: one string, slowest
 * first, entries `TRACEID MS AT STATUS` joined by commas
 * (`4bf92f3577b34da6a3ce929d0e0e4736 812.5 1764590400123 200,…`).
 *
 * Why text and not a list of objects: a batch carries one list per request name, and the master
 * parsed 100 small objects a batch out of the queue's JSON, then let them go: that parse and its
 * garbage were most of what tracing cost the master per batch (`pnpm bench ingest --extras`).
 * A list is now checked without allocating and decoded only when its slowest entry can change
 * what the master keeps (see RequestAggregate in @volley/stats).
 */

/** The longest entry: id, a latency of 10+3 digits, a 15-digit time, the longest gRPC status. */
const MAX_SLOWEST_TEXT = MAX_SLOWEST * 120;

/** The list as text (the list slowest first, as mergeSlowest keeps it). */
export function encodeSlowest(list: readonly SlowTrace[]): string {
  let text = "";
  for (let i = 0; i < list.length; i++) {
    const { traceId, ms, at, status } = list[i];
    text += `${i ? "," : ""}${traceId} ${ms} ${at} ${status}`;
  }
  return text;
}

/** The entries of text that slowestTextProblem accepted. */
export function decodeSlowest(text: string): SlowTrace[] {
  if (text === "") return [];
  return text.split(",").map((entry) => {
    const [traceId, ms, at, status] = entry.split(" ");
    return { traceId, ms: Number(ms), at: Number(at), status };
  });
}

/** Entries in text that slowestTextProblem accepted. */
export function slowestCount(text: string): number {
  if (text === "") return 0;
  let count = 1;
  for (let i = text.indexOf(","); i >= 0; i = text.indexOf(",", i + 1)) count++;
  return count;
}

/** The latency of the first (slowest) entry of text that slowestTextProblem accepted; -1 for none. */
export function slowestTopMs(text: string): number {
  return text === "" ? -1 : latencyAt(text, ID_LENGTH + 1);
}

const ID_LENGTH = 32;
/**
 * One entry: a 32-digit lower-case hex id, a latency of at most 10 digits and 3 decimals, a time
 * of at most 15 digits, and a status: "0" (no answer), three digits (HTTP), or grpc:NAME.
 */
const ENTRY = `[0-9a-f]{${ID_LENGTH}} \\d{1,10}(?:\\.\\d{1,3})? \\d{1,15} (?:0|\\d{3}|grpc:(?:${GRPC_STATUS_NAMES.join("|")}))`;
const LIST_RE = new RegExp(`^${ENTRY}(?:,${ENTRY}){0,${MAX_SLOWEST - 1}}$`);
const ENTRY_RE = new RegExp(`^${ENTRY}$`);

/**
 * Why `value` is not a slowest list's text, or null: at most MAX_SLOWEST entries of the shape
 * above, slowest first. The shape is one regular expression (compiled to machine code: 0.4 µs a
 * list of five, half a hand-written scanner's time), the order one walk over the latencies.
 */
export function slowestTextProblem(value: unknown): string | null {
  if (typeof value !== "string") return "is not text";
  if (value === "") return null;
  if (value.length > MAX_SLOWEST_TEXT) return `is longer than ${MAX_SLOWEST} entries can be`;
  if (!LIST_RE.test(value)) {
    // Refused: say where (this path may allocate).
    const entries = value.split(",");
    if (entries.length > MAX_SLOWEST) return `holds more than ${MAX_SLOWEST} entries`;
    const bad = entries.findIndex((entry) => !ENTRY_RE.test(entry));
    return `entry ${bad} is not "TRACEID MS AT STATUS" (entries joined by commas)`;
  }
  let previous = Number.POSITIVE_INFINITY;
  for (let start = 0; start >= 0; ) {
    const ms = latencyAt(value, start + ID_LENGTH + 1);
    if (ms > previous) return "is not slowest first";
    previous = ms;
    const comma = value.indexOf(",", start + ID_LENGTH);
    start = comma < 0 ? -1 : comma + 1;
  }
  return null;
}

/** A batch's slowest list (see slowestTextProblem). */
export const slowestTextSchema = z.string().superRefine((value, ctx) => {
  const problem = slowestTextProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * The latency that starts at `i` of text the shape above accepted, read as Number() reads it: at
 * most 13 digits as one integer divided by a power of ten, both exact, so the one rounding is
 * Number's.
 */
function latencyAt(text: string, i: number): number {
  let at = i;
  let digits = 0;
  let scale = 1;
  let c = text.charCodeAt(at);
  for (; c !== SPACE && c !== POINT; c = text.charCodeAt(++at)) digits = digits * 10 + c - 48;
  if (c === POINT)
    for (c = text.charCodeAt(++at); c !== SPACE; c = text.charCodeAt(++at)) {
      digits = digits * 10 + c - 48;
      scale *= 10;
    }
  return digits / scale;
}

const SPACE = 32;
const POINT = 46;

/**
 * Statistics stored before the slowest list became text (seconds, totals and open seconds
 * written by an earlier version hold a list of objects), read as today's. Mutates and returns.
 */
export function withSlowestText<T extends { slowest?: unknown }>(stats: T): T {
  if (Array.isArray(stats.slowest)) stats.slowest = encodeSlowest(stats.slowest as SlowTrace[]);
  return stats;
}
