import { describe, expect, it } from "vitest";
import { countAbove, latencyShift, latencyShifts } from "./latency-shift.js";
import { RequestAggregate } from "./request-aggregate.js";
import { RequestRecorder } from "./request-recorder.js";

/** mulberry32: small seeds give independent streams (a plain LCG's first draws are correlated). */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `count` latencies drawn from `draw` (µs), merged as the master merges a run. */
function aggregateOf(count: number, draw: () => number): RequestAggregate {
  const recorder = new RequestRecorder("r", "GET");
  for (let i = 0; i < count; i++) recorder.record(Math.round(draw()), 200, 0, 0);
  const aggregate = new RequestAggregate("r", "GET");
  aggregate.add(recorder.flush());
  return aggregate;
}

describe("latency shift on whole histograms", () => {
  it("counts the values above a latency exactly (equal values are not above)", () => {
    const aggregate = aggregateOf(
      1000,
      (() => {
        let i = 0;
        return () => ++i * 100;
      })(),
    );
    expect(countAbove(aggregate.histogram, 50_000)).toBe(500);
    expect(countAbove(aggregate.histogram, 100_000)).toBe(0);
    expect(countAbove(aggregate.histogram, 1)).toBe(1000);
  });

  it("a whole distribution 10 % slower: far more requests above the old p95, far beyond noise", () => {
    const random = seeded(7);
    const base = aggregateOf(50_000, () => 10_000 + random() * 40_000);
    const slower = aggregateOf(50_000, () => (10_000 + random() * 40_000) * 1.1);
    const shift = latencyShift(base, slower, 95);
    expect(shift?.aMs).toBeCloseTo(48, 0);
    expect(shift?.aShare).toBeCloseTo(0.05, 2);
    expect(shift?.bShare).toBeGreaterThan(0.12);
    expect(shift?.z).toBeGreaterThan(30);
  });

  it("two samples of one distribution: the p99 of 300 requests moves, the z says it is noise", () => {
    const spread = (seed: number) => {
      const random = seeded(seed);
      return () => 5_000 + (random() < 0.9 ? random() * 10_000 : random() * 200_000);
    };
    let worstChange = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const a = aggregateOf(300, spread(seed));
      const b = aggregateOf(300, spread(seed + 100));
      const shift = latencyShift(a, b, 99);
      worstChange = Math.max(worstChange, Math.abs(b.percentileUs(99) / a.percentileUs(99) - 1));
      expect(Math.abs(shift?.z ?? 99)).toBeLessThan(3);
    }
    // The single number moved well over 10 % in some pair: a p99 gate alone would trip.
    expect(worstChange).toBeGreaterThan(0.1);
  });

  it("reports every summary percentile, and nothing for an empty run", () => {
    const random = seeded(3);
    const a = aggregateOf(2000, () => 1000 + random() * 1000);
    expect(Object.keys(latencyShifts(a, a))).toEqual(["p50", "p75", "p90", "p95", "p99", "p999"]);
    expect(latencyShifts(a, a).p50?.z).toBe(0);
    expect(latencyShifts(a, new RequestAggregate("r", "GET"))).toEqual({});
  });
});
