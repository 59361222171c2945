import { describe, expect, it } from "vitest";
import { downsample, maxOf } from "./numbers.js";

describe("maxOf", () => {
  it("takes a million values (Math.max(...values) would overflow the stack)", () => {
    const values = Array.from({ length: 1_000_000 }, (_, i) => i % 1000);
    values[777_777] = 5000;
    expect(maxOf(values)).toBe(5000);
    expect(maxOf([], 0)).toBe(0);
    expect(maxOf([-5, -2], 1)).toBe(1);
  });
});

describe("downsample", () => {
  it("keeps at most the limit and every bucket's peak", () => {
    const points = Array.from({ length: 200_000 }, (_, i) => [i, i === 123_456 ? 99 : 1] as const);
    const kept = downsample(points, 1000, (p) => p[1]);
    expect(kept.length).toBeLessThanOrEqual(1000);
    expect(kept.some((p) => p[1] === 99)).toBe(true);
    expect(kept[0]).toEqual([0, 1]);
    expect(downsample(points.slice(0, 10), 1000, (p) => p[1])).toHaveLength(10);
  });
});
