import { describe, expect, it } from "vitest";
import { constantRate, rampingRate } from "./rate-profile.js";
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
