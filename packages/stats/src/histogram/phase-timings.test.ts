import { describe, expect, it } from "vitest";
import { PhaseTimings, phasesProblem } from "./phase-timings.js";

describe("phase timings", () => {
  it("merge several recorders' phases into percentiles within 1 %", () => {
    const recorders = [new PhaseTimings(true), new PhaseTimings(true)];
    // 1,000 requests: 20 opened a connection (5 ms connect, 8 ms TLS), every one waited i ms.
    for (let i = 1; i <= 1000; i++) {
      const opened = i % 50 === 0;
      recorders[i % 2].record(opened ? 5000 : 0, opened ? 8000 : 0, i * 1000);
    }
    const merged = new PhaseTimings(false);
    for (const recorder of recorders) merged.add(recorder.encode());
    expect(merged.count).toBe(1000);
    expect(merged.percentilesMs("connect")).toMatchObject({ p50: 0, p95: 0 });
    expect(merged.percentilesMs("connect").p99 / 5).toBeCloseTo(1, 1);
    expect(merged.percentilesMs("tls").p99 / 8).toBeCloseTo(1, 1);
    const waiting = merged.percentilesMs("waiting");
    for (const [key, exact] of [
      ["p50", 500],
      ["p95", 950],
      ["p99", 990],
    ] as const) {
      expect(Math.abs(waiting[key] - exact) / exact).toBeLessThanOrEqual(0.01);
    }
  });

  it("refuse a batch's phases that claim more than their seconds hold, or do not decode", () => {
    const recorder = new PhaseTimings(true);
    recorder.record(0, 0, 1000);
    recorder.record(0, 0, 2000);
    const encoded = recorder.encode();
    expect(phasesProblem(encoded, 2)).toBeNull();
    expect(phasesProblem(encoded, 1)).toMatch(/more timed requests than the seconds/);
    expect(phasesProblem({ ...encoded, count: 1 }, 5)).toMatch(/hold more values than requests timed/);
    expect(phasesProblem({ ...encoded, waiting: "AgE=" }, 5)).toMatch(/waiting timings/);
  });
});
