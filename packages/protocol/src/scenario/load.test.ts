import { describe, expect, it } from "vitest";
import { type LoadConfig, loadSchema, MAX_VUS_PER_THREAD, peakVus, vuCeiling } from "./load.js";

const load = (input: Record<string, unknown>) => loadSchema.parse(input) as LoadConfig;

describe("vuCeiling", () => {
  it("gives VU executors 4x their planned peak without maxVus, bounded by one thread, never below the plan", () => {
    expect(vuCeiling(load({ executor: "constant-vus", vus: 10, duration: "1m" }))).toBe(40);
    expect(peakVus(load({ executor: "constant-vus", vus: 10, duration: "1m" }))).toBe(10);
    expect(
      vuCeiling(
        load({
          executor: "ramping-vus",
          stages: [
            { duration: "1m", target: 30 },
            { duration: "1m", target: 5 },
          ],
        }),
      ),
    ).toBe(120);
    expect(vuCeiling(load({ executor: "constant-vus", vus: 40_000, duration: "1m" }))).toBe(
      MAX_VUS_PER_THREAD,
    );
    expect(vuCeiling(load({ executor: "constant-vus", vus: 150_000, duration: "1m" }))).toBe(150_000);
  });

  it("is maxVus when given, and the plan for executors whose VUs do not change", () => {
    expect(vuCeiling(load({ executor: "constant-vus", vus: 10, maxVus: 12, duration: "1m" }))).toBe(12);
    expect(vuCeiling(load({ executor: "per-vu-iterations", vus: 10, iterations: 2 }))).toBe(10);
    expect(vuCeiling(load({ executor: "constant-arrival-rate", rate: 10, duration: "1m", maxVus: 7 }))).toBe(
      7,
    );
  });
});
