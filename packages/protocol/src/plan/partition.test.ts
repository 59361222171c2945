import { describe, expect, it } from "vitest";
import { Partition } from "./partition.js";

function slices(weights: number[]): Partition[] {
  return weights.map((_, index) => new Partition([{ weights, index }]));
}

describe("Partition", () => {
  it("whole partition keeps everything", () => {
    const whole = new Partition();
    expect(whole.count(17)).toBe(17);
    expect(whole.unitOf(5)).toBe(5);
  });

  it("counts always add up to the total and follow the weights", () => {
    const parts = slices([3, 1, 2]);
    for (let total = 0; total <= 200; total++) {
      expect(parts.reduce((sum, p) => sum + p.count(total), 0)).toBe(total);
    }
    expect(parts.map((p) => p.count(600))).toEqual([300, 100, 200]);
  });

  it("a slice's count never falls when the total grows", () => {
    const parts = slices([5, 3, 3, 1]);
    for (const part of parts) {
      let previous = 0;
      for (let total = 0; total <= 500; total++) {
        const count = part.count(total);
        expect(count).toBeGreaterThanOrEqual(previous);
        previous = count;
      }
    }
  });

  it("VU numbers are unique across two levels and cover 0..total-1", () => {
    const workers = [2, 3, 1];
    const total = 137;
    const seen = new Set<number>();
    workers.forEach((threads, w) => {
      const worker = new Partition([{ weights: workers, index: w }]);
      for (let t = 0; t < threads; t++) {
        const thread = worker.child(Array(threads).fill(1), t);
        for (let j = 0; j < thread.count(total); j++) seen.add(thread.unitOf(j));
      }
    });
    expect(seen.size).toBe(total);
    expect(Math.min(...seen)).toBe(0);
    expect(Math.max(...seen)).toBe(total - 1);
  });

  it("the first units of a ramp are spread over slices, not piled on the first", () => {
    const parts = slices([1, 1]);
    expect(parts.map((p) => p.count(1))).toEqual([1, 0]);
    expect(parts.map((p) => p.count(2))).toEqual([1, 1]);
    expect(parts.map((p) => p.count(3))).toEqual([2, 1]);
  });

  it("rejects a slot outside the weights", () => {
    expect(() => new Partition([{ weights: [1, 1], index: 2 }])).toThrow(RangeError);
  });
});
