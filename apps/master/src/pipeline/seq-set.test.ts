import { describe, expect, it } from "vitest";
import { SeqSet } from "./seq-set.js";

describe("SeqSet", () => {
  it("folds contiguous seqs into the watermark and keeps the rest", () => {
    const set = new SeqSet();
    for (const seq of [0, 2, 3, 1, 7]) set.add(seq);
    expect(set.toJSON()).toEqual({ below: 4, above: [7] });
    expect(set.has(3)).toBe(true);
    expect(set.has(5)).toBe(false);
    expect(set.has(7)).toBe(true);
    expect(set.size).toBe(5);
    const copy = new SeqSet(set.toJSON().below, set.toJSON().above);
    copy.add(4);
    copy.add(5);
    copy.add(6);
    expect(copy.toJSON()).toEqual({ below: 8, above: [] });
  });
});
