import { describe, expect, it } from "vitest";
import { constantRate, rampingRate, withRateOverride } from "./rate-profile.js";
import { interpolateStages } from "./stages.js";

describe("constantRate", () => {
  it("schedules rate x duration iterations evenly from t=0", () => {
    const profile = constantRate(10, 2000);
    expect(profile.dueBy(0)).toBe(1);
    expect(profile.dueBy(99)).toBe(1);
    expect(profile.dueBy(100)).toBe(2);
    expect(profile.dueBy(5000)).toBe(20);
    expect(profile.timeOf(19)).toBe(1900);
    expect(profile.timeOf(20)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("rampingRate", () => {
  const profile = rampingRate(0, [
    { duration: 10_000, target: 100 },
    { duration: 10_000, target: 100 },
    { duration: 5000, target: 0 },
  ]);

  it("integrates the rate: 500 + 1000 + 250 iterations", () => {
    expect(profile.dueBy(1e9)).toBe(1750);
    expect(profile.durationMs).toBe(25_000);
  });

  it("timeOf inverts dueBy", () => {
    for (const i of [0, 1, 10, 499, 500, 1000, 1499, 1500, 1749]) {
      const t = profile.timeOf(i);
      expect(profile.dueBy(t + 1e-6)).toBeGreaterThanOrEqual(i + 1);
      expect(profile.dueBy(t - 1e-3)).toBeLessThanOrEqual(i + 1);
    }
    expect(profile.timeOf(1750)).toBe(Number.POSITIVE_INFINITY);
  });

  it("quadratic ramp: half the first stage's iterations come in its last 30%", () => {
    expect(profile.timeOf(125)).toBeCloseTo(5000, 0);
  });
});

describe("interpolateStages", () => {
  it("moves linearly between targets", () => {
    const stages = [
      { duration: 1000, target: 10 },
      { duration: 1000, target: 0 },
    ];
    expect(interpolateStages(0, stages, 500)).toBe(5);
    expect(interpolateStages(0, stages, 1500)).toBe(5);
    expect(interpolateStages(0, stages, 5000)).toBe(0);
  });
});

describe("withRateOverride", () => {
  it("holds the new rate from the change to the end: 10/s for 1 s, then 50/s for 1 s", () => {
    const profile = withRateOverride(constantRate(10, 2000), 1000, 50, null);
    expect(profile.dueBy(999)).toBe(10);
    expect(profile.dueBy(1e9)).toBe(60);
    expect(profile.timeOf(10)).toBe(1000);
    expect(profile.timeOf(11)).toBe(1020);
    expect(profile.timeOf(59)).toBe(1980);
    expect(profile.timeOf(60)).toBe(Number.POSITIVE_INFINITY);
  });

  it("until the end of a stage, then the plan again, shifted by the iterations it changed", () => {
    const base = rampingRate(100, [
      { duration: 2000, target: 100 },
      { duration: 2000, target: 100 },
    ]);
    const profile = withRateOverride(base, 1000, 0, 2000);
    // 100 before the change (the 101st is due at it), none during it, 200 in the last two seconds.
    expect(profile.dueBy(999)).toBe(100);
    expect(profile.dueBy(1999)).toBe(101);
    expect(profile.dueBy(1e9)).toBe(300);
    expect(profile.timeOf(99)).toBeCloseTo(990, 6);
    expect(profile.timeOf(100)).toBe(1000);
    expect(profile.timeOf(101)).toBeCloseTo(2010, 6);
    for (const i of [0, 50, 99, 100, 150, 299]) {
      expect(profile.dueBy(profile.timeOf(i))).toBe(i + 1);
    }
  });

  it("changes compose: the later one counts from where the earlier left the sequence", () => {
    const once = withRateOverride(constantRate(10, 3000), 1000, 20, null);
    const twice = withRateOverride(once, 2000, 5, null);
    expect(twice.dueBy(1999)).toBe(30);
    expect(twice.dueBy(1e9)).toBe(35);
    expect(twice.timeOf(30)).toBe(2000);
    expect(twice.timeOf(31)).toBe(2200);
  });
});
