import { describe, expect, it } from "vitest";
import { labelsMatch, parseLabel, selectorText, workerSelectionSchema } from "./worker-labels.js";

describe("worker labels", () => {
  it("reads K=V, and says what is wrong with anything else", () => {
    expect(parseLabel("pool=eu")).toEqual(["pool", "eu"]);
    expect(parseLabel("zone=eu-west-1a")).toEqual(["zone", "eu-west-1a"]);
    expect(parseLabel("pool")).toMatch(/not a label/);
    expect(parseLabel("=eu")).toMatch(/not a label/);
    expect(parseLabel("pool=e u")).toMatch(/label value/);
    expect(parseLabel("-x=1")).toMatch(/label name/);
  });

  it("matches a selector when every pair is carried; an empty one matches all", () => {
    expect(labelsMatch({ pool: "eu", tier: "big" }, { pool: "eu" })).toBe(true);
    expect(labelsMatch({ pool: "eu" }, { pool: "eu", tier: "big" })).toBe(false);
    expect(labelsMatch({ pool: "us" }, { pool: "eu" })).toBe(false);
    expect(labelsMatch({}, {})).toBe(true);
    expect(selectorText({ pool: "eu", tier: "big" })).toBe("pool=eu, tier=big");
    expect(selectorText({})).toBe("any worker");
  });

  it("bounds a selection: at most 20 labels, a count from 1", () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"]));
    expect(workerSelectionSchema.safeParse({ selector: many }).success).toBe(false);
    expect(workerSelectionSchema.safeParse({ count: 0 }).success).toBe(false);
    expect(workerSelectionSchema.parse({ count: 2 })).toEqual({ selector: {}, count: 2 });
  });
});
