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
 * A list is now checked in one pass that allocates nothing and decoded only when its slowest
 * entry can change what the master keeps (see RequestAggregate in @volley/stats).
 */

/** The longest entry: id, a latency of 10+3 digits, a 15-digit time, the longest gRPC status. */
const MAX_SLOWEST_TEXT = MAX_SLOWEST * 120;
const GRPC_STATUSES = new Set<string>(GRPC_STATUS_NAMES);

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
  return text === "" || scanEntry(text, 0) < 0 ? -1 : scannedMs;
}

/**
 * Why `value` is not a slowest list's text, or null: at most MAX_SLOWEST entries of the shape
 * above, slowest first. One pass by hand that allocates nothing and reads each latency as it
 * checks the order (about 1 µs a list of five, as fast as a regular expression of the same
 * shape that checks no order; 1.6 µs with range tests instead of the class table).
 */
export function slowestTextProblem(value: unknown): string | null {
  if (typeof value !== "string") return "is not text";
  if (value === "") return null;
  if (value.length > MAX_SLOWEST_TEXT) return `is longer than ${MAX_SLOWEST} entries can be`;
  let previous = Number.POSITIVE_INFINITY;
  for (let start = 0, entry = 0; ; entry++) {
    if (entry === MAX_SLOWEST) return `holds more than ${MAX_SLOWEST} entries`;
    const end = scanEntry(value, start);
    if (end < 0) return `entry ${entry} is not "TRACEID MS AT STATUS" (entries joined by commas)`;
    if (scannedMs > previous) return "is not slowest first";
    previous = scannedMs;
    if (end === value.length) return null;
    start = end + 1;
  }
}

/** A batch's slowest list (see slowestTextProblem). */
export const slowestTextSchema = z.string().superRefine((value, ctx) => {
  const problem = slowestTextProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** The latency of the entry scanEntry read last. */
let scannedMs = 0;

/** By character code: HEX for 0-9 and a-f, DIGIT for 0-9 (one lookup, no range tests). */
const HEX = 1;
const DIGIT = 2;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CHAR_CLASS[c] = HEX | DIGIT;
for (let c = 97; c <= 102; c++) CHAR_CLASS[c] = HEX;

/** The class of the character at `i` (0 past the end or beyond ASCII). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? CHAR_CLASS[c] : 0;
}

/**
 * Reads the entry `TRACEID MS AT STATUS` at `start`: where it ends (a comma or the text's end),
 * or -1 when it is not one. Its latency goes to scannedMs, read as Number() reads it: at most 13
 * digits as one integer divided by a power of ten, both exact, so the one rounding is Number's.
 */
function scanEntry(text: string, start: number): number {
  let i = start;
  for (const idEnd = start + 32; i < idEnd; i++) if ((classAt(text, i) & HEX) === 0) return -1;
  if (text.charCodeAt(i++) !== SPACE) return -1;
  let digits = 0;
  let scale = 1;
  const wholeStart = i;
  for (; classAt(text, i) & DIGIT; i++) digits = digits * 10 + text.charCodeAt(i) - 48;
  if (i === wholeStart || i - wholeStart > 10) return -1;
  if (text.charCodeAt(i) === POINT) {
    const fractionStart = ++i;
    for (; classAt(text, i) & DIGIT; i++) {
      digits = digits * 10 + text.charCodeAt(i) - 48;
      scale *= 10;
    }
    if (i === fractionStart || i - fractionStart > 3) return -1;
  }
  if (text.charCodeAt(i++) !== SPACE) return -1;
  const atStart = i;
  while (classAt(text, i) & DIGIT) i++;
  if (i === atStart || i - atStart > 15 || text.charCodeAt(i++) !== SPACE) return -1;
  const statusStart = i;
  while (i < text.length && text.charCodeAt(i) !== COMMA) i++;
  if (!isStatus(text, statusStart, i)) return -1;
  scannedMs = digits / scale;
  return i;
}

/** "0" (no answer), three digits (HTTP), or grpc:NAME (as statusCodes keys them). */
function isStatus(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length === 1) return text.charCodeAt(start) === 48;
  if (length === 3)
    return (classAt(text, start) & classAt(text, start + 1) & classAt(text, start + 2) & DIGIT) !== 0;
  return text.startsWith("grpc:", start) && GRPC_STATUSES.has(text.slice(start + 5, end));
}

const SPACE = 32;
const POINT = 46;
const COMMA = 44;

/**
 * Statistics stored before the slowest list became text (seconds, totals and open seconds
 * written by an earlier version hold a list of objects), read as today's. Mutates and returns.
 */
export function withSlowestText<T extends { slowest?: unknown }>(stats: T): T {
  if (Array.isArray(stats.slowest)) stats.slowest = encodeSlowest(stats.slowest as SlowTrace[]);
  return stats;
}
