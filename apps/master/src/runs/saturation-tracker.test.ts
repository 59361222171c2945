import { describe, expect, it } from "vitest";
import { SaturationTracker } from "./saturation-tracker.js";

describe("SaturationTracker", () => {
  it("keeps each saturated span with its peaks, and every worker's peaks", () => {
    const start = 1_000_000;
    const tracker = new SaturationTracker(start);
    const at = (s: number) => start + s * 1000 + 10;
    tracker.record("w1", "alpha", { cpu: 40, machineCpu: 50, eventLoopDelayMs: 5 }, false, at(0));
    tracker.record("w1", "alpha", { cpu: 97, machineCpu: 99, eventLoopDelayMs: 80, vus: 12 }, true, at(1));
    tracker.record("w1", "alpha", { cpu: 95, machineCpu: 98, eventLoopDelayMs: 20 }, true, at(2));
    tracker.record("w1", "alpha", { cpu: 30, machineCpu: 40, eventLoopDelayMs: 5 }, false, at(3));
    tracker.record("w2", "beta", { cpu: 99, machineCpu: 99, eventLoopDelayMs: 1 }, true, at(5));
    tracker.record("w2", "beta", { cpu: 99, machineCpu: 99, eventLoopDelayMs: 1 }, true, at(6));
    // A single slow second (start-up, a GC pause) is not reported.
    tracker.record("w3", "gamma", { cpu: 20, machineCpu: 30, eventLoopDelayMs: 70 }, true, at(1));
    tracker.record("w3", "gamma", { cpu: 20, machineCpu: 30, eventLoopDelayMs: 5 }, false, at(2));
    const warnings = tracker.warnings();
    expect(warnings.map((w) => [w.workerName, w.fromS, w.toS])).toEqual([
      ["alpha", 1, 3],
      ["beta", 5, 7],
    ]);
    expect(warnings[0].message).toContain("the worker's own process at up to 97% CPU");
    expect(warnings[0].message).toContain("event-loop delay up to 80 ms");
    expect(tracker.peaks("w1")).toEqual({ peakVus: 12, peakCpu: 97, peakEventLoopDelayMs: 80 });
    expect(tracker.peaks("nobody")).toEqual({ peakVus: 0, peakCpu: 0, peakEventLoopDelayMs: 0 });
  });

  it("says when other processes, not the worker, kept the machine's cores busy", () => {
    const start = 1_000_000;
    const tracker = new SaturationTracker(start);
    const at = (s: number) => start + s * 1000 + 10;
    // Four cores 98 % busy; the worker's process used 60 % of one core: 15 % of the machine.
    tracker.record("w1", "alpha", { cpu: 60, machineCpu: 98, eventLoopDelayMs: 3, cores: 4 }, true, at(1));
    tracker.record("w1", "alpha", { cpu: 55, machineCpu: 97, eventLoopDelayMs: 2, cores: 4 }, true, at(2));
    // Two cores, its own process at 190 % of a core: the worker itself.
    tracker.record("w2", "beta", { cpu: 190, machineCpu: 97, eventLoopDelayMs: 3, cores: 2 }, true, at(1));
    tracker.record("w2", "beta", { cpu: 185, machineCpu: 96, eventLoopDelayMs: 3, cores: 2 }, true, at(2));
    const [alpha, beta] = tracker.warnings();
    expect(alpha.message).toContain(
      "the machine's cores busy up to 98%, the worker's own process using at most 15% of them: other processes took the rest",
    );
    expect(beta.message).toContain("the worker's own process at up to 190% CPU, its cores busy up to 97%");
    expect(beta.message).not.toContain("other processes");
  });
});
