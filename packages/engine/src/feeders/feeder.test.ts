import { MAX_RELEASED_RANGES, type RowRange, rangesLength } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { Feeder, FeederSet } from "./feeder.js";

/** A unique feeder over the table rows the ranges name (each row's one cell is its number). */
function uniqueFeeder(ranges: RowRange[], onExhausted: "stop" | "recycle" = "stop"): Feeder {
  const rows = ranges.flatMap(([from, to]) =>
    Array.from({ length: to - from }, (_, i) => [String(from + i)]),
  );
  return new Feeder("users", ["n"], rows, "unique", onExhausted, ranges);
}

/** Every row the feeder still hands out (stop mode: until it runs out). */
function drain(feeder: Feeder): number[] {
  const out: number[] = [];
  for (let row = feeder.next(1, 0); row !== null; row = feeder.next(1, 0)) out.push(Number(row[0]));
  return out;
}

const numbers = (ranges: RowRange[]) =>
  ranges.flatMap(([from, to]) => Array.from({ length: to - from }, (_, i) => from + i));

describe("Feeder.release (rows for a worker joining the run)", () => {
  it("gives up a share of the unused rows from the end: none handed out before, none after", () => {
    const feeder = uniqueFeeder([
      [0, 50],
      [200, 250],
    ]);
    const used = Array.from({ length: 30 }, () => Number(feeder.next(1, 0)?.[0]));
    const released = feeder.release(0.4);
    // 70 unused rows, 40 % of them: the last 28 of the list.
    expect(rangesLength(released)).toBe(28);
    expect(released).toEqual([[222, 250]]);
    const rest = drain(feeder);
    const all = [...used, ...rest, ...numbers(released)];
    expect(all.sort((a, b) => a - b)).toEqual(
      numbers([
        [0, 50],
        [200, 250],
      ]),
    );
    expect(new Set(all).size).toBe(100);
  });

  it("releases again from what it kept, across range boundaries", () => {
    const feeder = uniqueFeeder([
      [0, 10],
      [20, 30],
    ]);
    expect(feeder.release(0.5)).toEqual([[20, 30]]);
    expect(feeder.release(0.5)).toEqual([[5, 10]]);
    expect(drain(feeder)).toEqual([0, 1, 2, 3, 4]);
    expect(feeder.release(0.5)).toEqual([]);
  });

  it("recycle starts over on the rows it kept", () => {
    const feeder = uniqueFeeder([[0, 6]], "recycle");
    feeder.next(1, 0);
    expect(feeder.release(0.5)).toEqual([[4, 6]]);
    const seen = Array.from({ length: 9 }, () => Number(feeder.next(1, 0)?.[0]));
    expect(seen).toEqual([1, 2, 3, 0, 1, 2, 3, 0, 1]);
  });

  it("a list cut into more ranges than one answer takes keeps the rest", () => {
    const ranges: RowRange[] = Array.from({ length: MAX_RELEASED_RANGES + 10 }, (_, i) => [i * 3, i * 3 + 1]);
    const feeder = uniqueFeeder(ranges);
    const released = feeder.release(0.999);
    expect(released).toHaveLength(MAX_RELEASED_RANGES);
    expect(released.at(-1)).toEqual(ranges.at(-1));
    expect(drain(feeder)).toHaveLength(ranges.length - MAX_RELEASED_RANGES);
  });

  it("a feeder without row numbers, or not unique, gives nothing up", () => {
    const bare = new Feeder("users", ["n"], [["a"], ["b"]], "unique", "stop");
    expect(bare.release(0.5)).toEqual([]);
    expect(drain(bare)).toEqual([Number.NaN, Number.NaN]);
    const set = new FeederSet(
      {
        users: { rows: [{ n: 1 }], mode: "unique", onExhausted: "stop" },
        words: { rows: [{ n: 1 }], mode: "sequential", onExhausted: "stop" },
      },
      {
        users: { columns: ["n"], rows: [["0"], ["1"], ["2"], ["3"]] },
        words: { columns: ["n"], rows: [["a"], ["b"]] },
      },
      { users: [[0, 4]] },
    );
    expect(set.release(0.5)).toEqual({ users: [[2, 4]] });
    expect(set.release(0.5)).toEqual({ users: [[1, 2]] });
  });
});
