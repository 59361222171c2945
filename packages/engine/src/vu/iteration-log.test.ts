import { performance } from "node:perf_hooks";
import { Partition } from "@volley/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineVu, IterationEnd } from "./engine-vu.js";
import { IterationLog } from "./iteration-log.js";
import { VuPool } from "./vu-pool.js";

/** A VU whose iteration ends when the test says so. */
class HeldVu implements EngineVu {
  iteration = 0;
  busy = false;
  exhausted = false;
  outcome = "finished" as const;
  unstarted = false;
  private onEnd: IterationEnd | null = null;
  constructor(
    readonly number: number,
    readonly index: number,
  ) {}
  startIteration(onEnd: IterationEnd): void {
    this.busy = true;
    this.onEnd = onEnd;
  }
  end(): void {
    this.busy = false;
    this.iteration++;
    this.onEnd?.(this);
  }
  abort(): void {}
}

/** A clock that moves 1 ms each time it is read. */
function steppingClock() {
  let now = 0;
  return vi.spyOn(performance, "now").mockImplementation(() => ++now);
}

describe("an iteration's start", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is the previous one's end when the VU goes again while that end is handled (no clock read of its own)", () => {
    const clock = steppingClock();
    const log = new IterationLog(null);
    let rounds = 0;
    const pool: VuPool = new VuPool(
      (number, index) => new HeldVu(number, index),
      new Partition(),
      1,
      (vu) => {
        if (++rounds < 3) pool.run(vu);
      },
      0,
      log,
    );
    const vu = pool.get(0) as HeldVu;
    pool.run(vu); // clock 1
    vu.end(); // clock 2, and again at once
    vu.end(); // clock 3, and again at once
    vu.end(); // clock 4
    expect(clock).toHaveBeenCalledTimes(4);
    const finished = log.finished.flush();
    expect(finished.requests).toBe(3);
    // 1 ms each: back to back, each starting where the last ended.
    expect(finished.latency.sumUs).toBe(3000);
  });

  it("is read from the clock when the VU goes again later, not taken from its last end", () => {
    const clock = steppingClock();
    const log = new IterationLog(null);
    const pool = new VuPool(
      (number, index) => new HeldVu(number, index),
      new Partition(),
      1,
      () => {},
      0,
      log,
    );
    const vu = pool.get(0) as HeldVu;
    pool.run(vu); // clock 1
    vu.end(); // clock 2; nobody starts it again meanwhile
    clock.mockImplementationOnce(() => 50);
    pool.run(vu); // clock 50: an arrival rate's timer, say
    clock.mockImplementationOnce(() => 53);
    vu.end();
    const finished = log.finished.flush();
    expect(finished.requests).toBe(2);
    expect([finished.latency.minUs, finished.latency.maxUs]).toEqual([1000, 3000]);
  });
});
