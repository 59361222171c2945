import { z } from "zod";
import { MAX_DATA_ROWS } from "../scenario/data.js";
import { Partition, type PartitionStep } from "./partition.js";

/**
 * A unique feeder's rows as ranges of row numbers, `[from, to)`. A thread's rows are a list of
 * them, used in order; they start as one contiguous block per thread and are cut and moved
 * whole when a worker joins the run (its share comes from the tails of the others' lists), so
 * every list, release and grant stays a short list of ranges however often the run is rebalanced.
 */
export type RowRange = [from: number, to: number];

export const rowRangeSchema = z
  .tuple([z.int().min(0).max(MAX_DATA_ROWS), z.int().min(0).max(MAX_DATA_ROWS)])
  .refine(([from, to]) => from < to, { error: "a row range [from, to) needs from < to" });

/** How many rows the ranges hold. */
export function rangesLength(ranges: readonly RowRange[]): number {
  let total = 0;
  for (const [from, to] of ranges) total += to - from;
  return total;
}

/** Positions `[start, end)` of the rows the ranges list, in order, as ranges. */
export function sliceRanges(ranges: readonly RowRange[], start: number, end: number): RowRange[] {
  const out: RowRange[] = [];
  let position = 0;
  for (const [from, to] of ranges) {
    const length = to - from;
    const lo = Math.max(start, position);
    const hi = Math.min(end, position + length);
    if (lo < hi) out.push([from + lo - position, from + hi - position]);
    position += length;
    if (position >= end) break;
  }
  return out;
}

/**
 * Slot `index`'s contiguous share of the rows the ranges list, shares in proportion to
 * `weights` (the slots before it take the rows before its share).
 */
export function dealRanges(
  ranges: readonly RowRange[],
  weights: readonly number[],
  index: number,
): RowRange[] {
  const total = rangesLength(ranges);
  const sum = weights.reduce((a, b) => a + b, 0);
  let before = 0;
  for (let k = 0; k < index; k++) before += weights[k];
  const start = Math.floor((total * before) / sum);
  const end = Math.floor((total * (before + weights[index])) / sum);
  return sliceRanges(ranges, start, end);
}

/**
 * The rows of a table of `rows` rows a slice gets at the start: workers by threads, then threads.
 * With `units` (the VUs whose iterations take the rows), each level deals in proportion to the
 * whole VUs each slot really gets, so a thread of 4 VUs gets rows for 4 VUs' iterations where
 * weights alone (threads) would have given it 3.5 VUs' worth: every planned iteration finds its
 * row, and no thread keeps rows another runs out of. Without, by the weights.
 */
export function startingRanges(rows: number, steps: readonly PartitionStep[], units?: number): RowRange[] {
  let ranges: RowRange[] = rows > 0 ? [[0, rows]] : [];
  for (let level = 0; level < steps.length; level++) {
    const step = steps[level];
    const weights =
      units === undefined ? step.weights : unitShares(steps.slice(0, level), step.weights, units);
    if (weights.every((w) => w === 0)) return [];
    ranges = dealRanges(ranges, weights, step.index);
  }
  return ranges;
}

/** The whole units each slot of one level gets of what its parent gets (Partition's own count). */
function unitShares(parent: readonly PartitionStep[], weights: readonly number[], units: number): number[] {
  const base = new Partition([...parent]);
  return weights.map((_, index) => base.child([...weights], index).count(units));
}

/** The ranges sorted, with touching ones joined (a grant of many tails often joins up). */
export function joinRanges(ranges: readonly RowRange[]): RowRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: RowRange[] = [];
  for (const [from, to] of sorted) {
    const last = out.at(-1);
    if (last && last[1] === from) last[1] = to;
    else out.push([from, to]);
  }
  return out;
}

/**
 * `owned` (sorted, disjoint) without `taken`; null when `owned` does not hold all of `taken`
 * (rows of someone else, given up already, or named twice in `taken`). One sweep over both.
 */
export function takeRanges(owned: readonly RowRange[], taken: readonly RowRange[]): RowRange[] | null {
  const sorted = [...taken].sort((a, b) => a[0] - b[0]);
  const rest: RowRange[] = [];
  let k = 0;
  for (const [lo, hi] of owned) {
    let cursor = lo;
    while (k < sorted.length && sorted[k][0] < hi) {
      const [from, to] = sorted[k];
      // Starts before the rest of this owned range (outside it, or overlapping one taken before).
      if (from < cursor || to > hi) return null;
      if (from > cursor) rest.push([cursor, from]);
      cursor = to;
      k++;
    }
    if (cursor < hi) rest.push([cursor, hi]);
  }
  return k === sorted.length ? rest : null;
}
