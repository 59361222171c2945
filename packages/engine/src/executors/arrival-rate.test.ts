import { performance } from "node:perf_hooks";
import { Partition, parseScenario } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import type { EngineVu, IterationEnd } from "../vu/engine-vu.js";
import { IterationLog } from "../vu/iteration-log.js";
import { LATE_START_TOLERANCE_MS } from "./arrival-rate.js";
import { ConstantArrivalRateExecutor } from "./constant-arrival-rate.js";

/** A VU whose iterations end at once, noting when each was scheduled. */
function instantVu(index: number, scheduled: number[]): EngineVu {
  const vu: EngineVu = {
    number: index + 1,
    index,
    iteration: 0,
    busy: false,
    exhausted: false,
    outcome: "finished",
    unstarted: false,
    startIteration(onEnd: IterationEnd, scheduledAt = -1) {
      scheduled.push(scheduledAt);
      vu.iteration++;
      queueMicrotask(() => onEnd(vu));
    },
    abort() {},
  };
  return vu;
}

function constantRateLoad(rate: number, duration: string) {
  const load = parseScenario({
    name: "late",
    target: "http://127.0.0.1:1",
    load: { executor: "constant-arrival-rate", rate, duration, maxVus: 5 },
    requests: [{ path: "/" }],
  }).parts[0].load;
  if (load.executor !== "constant-arrival-rate") throw new Error("not constant-arrival-rate");
  return load;
}

describe("an arrival rate whose thread begins after the scheduled start", () => {
  it("drops the iterations already due, records how late, and sends the rest on schedule", async () => {
    const scheduled: number[] = [];
    const log = new IterationLog(null);
    let dropped = 0;
    const startAt = performance.now() - 300;
    const done = new Promise<void>((resolve) => {
      const executor = new ConstantArrivalRateExecutor(constantRateLoad(100, "500ms"), {
        createVu: (_number, index) => instantVu(index, scheduled),
        partition: new Partition([]),
        startAt,
        iterations: log,
        onDropped: () => {
          dropped++;
        },
        onDone: resolve,
      });
      executor.begin();
    });
    await done;
    // 300 ms late at 100/s: those due up to 300 - tolerance ms are dropped, none of them sent.
    const missed = Math.floor((300 - LATE_START_TOLERANCE_MS) / 10) + 1;
    const late = log.lateStart.flush();
    expect(late.requests).toBeGreaterThanOrEqual(missed);
    expect(late.requests).toBeLessThanOrEqual(missed + 2);
    expect(late.latency.minUs).toBeGreaterThanOrEqual(300_000);
    expect(scheduled.every((at) => at - startAt >= late.requests * 10 - 1)).toBe(true);
    // Every one of the 50 scheduled is counted once: sent or dropped.
    expect(scheduled.length + dropped).toBe(50);
    expect(dropped).toBe(late.requests);
  });

  it("on time, drops nothing and records nothing late", async () => {
    const scheduled: number[] = [];
    const log = new IterationLog(null);
    let dropped = 0;
    await new Promise<void>((resolve) => {
      new ConstantArrivalRateExecutor(constantRateLoad(100, "200ms"), {
        createVu: (_number, index) => instantVu(index, scheduled),
        partition: new Partition([]),
        startAt: performance.now(),
        iterations: log,
        onDropped: () => {
          dropped++;
        },
        onDone: resolve,
      }).begin();
    });
    expect(log.lateStart.isEmpty).toBe(true);
    expect(scheduled.length + dropped).toBe(20);
    expect(dropped).toBe(0);
  });
});
