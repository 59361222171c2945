import { RequestRecorder } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { PeriodMerger } from "./period-merger.js";
import type { SlicePeriod } from "./slice-engine.js";

function period(second: number, requests: number, final = false): SlicePeriod {
  const recorder = new RequestRecorder("r", "GET");
  for (let i = 0; i < requests; i++) recorder.record(1000 + i, 200, 1, 1);
  return {
    second,
    final,
    requests: requests ? [recorder.flush()] : [],
    dropped: 1,
    vus: 2,
    loopDelayMs: second,
    pollIdleMs: 0,
  };
}

describe("PeriodMerger", () => {
  it("emits each second once every thread reported it, merged, in order", () => {
    const out: SlicePeriod[] = [];
    const merger = new PeriodMerger(2, (p) => out.push(p));
    merger.add(0, period(0, 3));
    merger.add(0, period(1, 4));
    expect(out).toHaveLength(0);
    merger.add(1, period(0, 5));
    expect(out.map((p) => [p.second, p.requests[0].requests, p.dropped, p.vus])).toEqual([[0, 8, 2, 4]]);
    merger.add(1, period(1, 1, true));
    merger.add(0, period(2, 2));
    merger.add(0, period(3, 0, true));
    expect(out.map((p) => [p.second, p.final])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(merger.isComplete).toBe(true);
  });

  it("a thread that dies keeps what it reported and ends with an empty final period", () => {
    const out: SlicePeriod[] = [];
    const merger = new PeriodMerger(2, (p) => out.push(p));
    merger.add(0, period(0, 1, true));
    merger.add(1, period(0, 1));
    merger.threadEnded(1);
    expect(out.map((p) => [p.second, p.final, p.requests.length])).toEqual([
      [0, false, 1],
      [1, true, 0],
    ]);
    expect(out[0].requests[0].requests).toBe(2);
  });
});
