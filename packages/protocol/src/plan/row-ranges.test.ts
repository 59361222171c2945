import { describe, expect, it } from "vitest";
import {
  dealRanges,
  joinRanges,
  type RowRange,
  rangesLength,
  rowRangeSchema,
  sliceRanges,
  startingRanges,
  takeRanges,
} from "./row-ranges.js";

/** Every row number the ranges list, in order. */
function rowsOf(ranges: RowRange[]): number[] {
  return ranges.flatMap(([from, to]) => Array.from({ length: to - from }, (_, i) => from + i));
}

describe("row ranges", () => {
  it("slices positions of a list of ranges, across range boundaries", () => {
    const ranges: RowRange[] = [
      [10, 13],
      [20, 22],
      [5, 9],
    ];
    expect(rangesLength(ranges)).toBe(9);
    expect(sliceRanges(ranges, 2, 6)).toEqual([
      [12, 13],
      [20, 22],
      [5, 6],
    ]);
    expect(sliceRanges(ranges, 0, 9)).toEqual(ranges);
    expect(sliceRanges(ranges, 4, 4)).toEqual([]);
    expect(rowsOf(sliceRanges(ranges, 3, 9))).toEqual(rowsOf(ranges).slice(3));
  });

  it("deals every row to exactly one slot, in contiguous shares that follow the weights", () => {
    const ranges: RowRange[] = [
      [0, 7],
      [40, 53],
      [100, 101],
    ];
    for (const weights of [[1], [1, 1], [3, 1, 2], [2, 5, 1, 1]]) {
      const shares = weights.map((_, index) => dealRanges(ranges, weights, index));
      expect(shares.flatMap(rowsOf)).toEqual(rowsOf(ranges));
      const sum = weights.reduce((a, b) => a + b, 0);
      shares.forEach((share, index) => {
        expect(Math.abs(rangesLength(share) - (21 * weights[index]) / sum)).toBeLessThan(1);
      });
    }
  });

  it("starts each thread with one block: workers by threads, then threads", () => {
    const workers = [3, 1];
    const blocks = workers.flatMap((threads, w) =>
      Array.from({ length: threads }, (_, t) =>
        startingRanges(1000, [
          { weights: workers, index: w },
          { weights: Array(threads).fill(1), index: t },
        ]),
      ),
    );
    expect(blocks.every((b) => b.length === 1)).toBe(true);
    expect(blocks.flatMap(rowsOf)).toEqual(rowsOf([[0, 1000]]));
    expect(blocks.map(rangesLength)).toEqual([250, 250, 250, 250]);
    expect(startingRanges(0, [{ weights: [1, 1], index: 0 }])).toEqual([]);
    expect(startingRanges(3, [{ weights: [1, 1, 1, 1], index: 0 }])).toEqual([]);
  });

  it("joins touching ranges and sorts them", () => {
    expect(
      joinRanges([
        [20, 30],
        [0, 5],
        [5, 10],
        [30, 31],
      ]),
    ).toEqual([
      [0, 10],
      [20, 31],
    ]);
  });

  it("takes ranges out of what a worker holds, or says it does not hold all of them", () => {
    const held: RowRange[] = [
      [0, 10],
      [20, 30],
    ];
    expect(takeRanges(held, [[3, 6]])).toEqual([
      [0, 3],
      [6, 10],
      [20, 30],
    ]);
    expect(
      takeRanges(held, [
        [25, 30],
        [0, 2],
        [20, 22],
      ]),
    ).toEqual([
      [2, 10],
      [22, 25],
    ]);
    expect(takeRanges(held, [[20, 30]])).toEqual([[0, 10]]);
    expect(takeRanges(held, [])).toEqual(held);
    // Across a gap, outside, before the first, or the same rows twice: not all held.
    expect(takeRanges(held, [[8, 22]])).toBeNull();
    expect(takeRanges(held, [[40, 41]])).toBeNull();
    expect(takeRanges([[5, 10]], [[0, 6]])).toBeNull();
    expect(
      takeRanges(held, [
        [1, 4],
        [3, 5],
      ]),
    ).toBeNull();
    // Taken once, it is not held any more.
    const rest = takeRanges(held, [[0, 10]]) as RowRange[];
    expect(takeRanges(rest, [[0, 1]])).toBeNull();
  });

  it("the schema refuses empty, reversed and out-of-bounds ranges", () => {
    expect(rowRangeSchema.safeParse([0, 1]).success).toBe(true);
    expect(rowRangeSchema.safeParse([3, 3]).success).toBe(false);
    expect(rowRangeSchema.safeParse([5, 2]).success).toBe(false);
    expect(rowRangeSchema.safeParse([-1, 2]).success).toBe(false);
    expect(rowRangeSchema.safeParse([0, 1.5]).success).toBe(false);
    expect(rowRangeSchema.safeParse([0, 6_000_000]).success).toBe(false);
  });
});
