import { describe, expect, it } from "vitest";
import { checkRequestStats } from "../request-check.js";
import { RequestRecorder } from "../request-recorder.js";
import { StatsAggregate } from "../stats-aggregate.js";
import { PHASES, PhaseTimings, phasesProblem } from "./phase-timings.js";
import { DecodedHistograms } from "./sparse-codec.js";

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
    expect(phasesProblem(encoded, 2, new DecodedHistograms())).toBeNull();
    expect(phasesProblem(encoded, 1, new DecodedHistograms())).toMatch(
      /more timed requests than the seconds/,
    );
    expect(phasesProblem({ ...encoded, count: 1 }, 5, new DecodedHistograms())).toMatch(
      /hold more values than requests timed/,
    );
    expect(phasesProblem({ ...encoded, waiting: "AgE=" }, 5, new DecodedHistograms())).toMatch(
      /waiting timings/,
    );
  });
});

describe("a batch's phases read once", () => {
  it("merge from what the check read as they merge when read again, each entry its own", () => {
    // Three names: the first without phases, so the others' phases are not at their entry's index.
    const recorders = ["plain", "a", "b"].map((name) => new RequestRecorder(name, "GET"));
    for (let i = 1; i <= 300; i++) {
      for (const [n, recorder] of recorders.entries()) {
        recorder.record(1000 + i, 200, 1, 1);
        if (n > 0) recorder.recordPhases(i % 30 === 0 ? 4000 * n : 0, 0, i * 100 * n);
      }
    }
    const batch = recorders.map((r) => r.flush());
    expect(batch.map((s) => s.timings !== undefined)).toEqual([false, true, true]);
    const decoded = new DecodedHistograms();
    expect(checkRequestStats(batch, decoded)).toBeNull();
    const once = new StatsAggregate();
    once.add(batch, 0, decoded);
    const twice = new StatsAggregate();
    twice.add(batch);
    for (const name of ["a", "b"]) {
      const phases = (aggregate: StatsAggregate) => {
        const timings = aggregate.get(name)?.phases;
        return timings && PHASES.map((phase) => timings.percentilesMs(phase));
      };
      expect(phases(once)).toEqual(phases(twice));
    }
    // "b" waited twice as long as "a": each took its own phases, not its neighbour's.
    expect(once.get("b")?.phases?.percentilesMs("waiting").p50).toBeCloseTo(
      2 * (once.get("a")?.phases?.percentilesMs("waiting").p50 ?? 0),
      0,
    );
  });
});
