import {
  type CapacitySearchConfig,
  LATE_START_METHOD,
  lateStartStatsName,
  parseScenario,
} from "@volley/protocol";
import { RequestRecorder, StatsAggregate } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { CapacityJudge } from "./capacity-judge.js";

const load = (extra: Record<string, unknown> = {}) =>
  parseScenario({
    name: "cap",
    target: "http://127.0.0.1:1",
    load: {
      executor: "capacity-search",
      startRate: 100,
      step: 100,
      stepDuration: "2s",
      maxRate: 500,
      maxVus: 50,
      slo: { p95: "<100ms", errorRate: "<1%" },
      ...extra,
    },
    requests: [{ name: "cap", path: "/cap" }],
  }).parts[0].load as CapacitySearchConfig;

/** One merged second: `requests` answers of `latencyMs`, `failed` of them 503s, `dropped` iterations. */
function second(requests: number, latencyMs: number, failed = 0, dropped = 0): StatsAggregate {
  const recorder = new RequestRecorder("cap", "GET");
  for (let i = 0; i < requests; i++) {
    recorder.record(latencyMs * 1000, i < failed ? 503 : 200, 0, 0, i < failed ? "status" : undefined);
  }
  const stats = new StatsAggregate();
  stats.add([recorder.flush()], dropped);
  return stats;
}

/** Feeds the judge two seconds per step, each step given as [requests/s, latency, failed/s, dropped/s]. */
function feed(judge: CapacityJudge, steps: Array<[number, number, number?, number?]>): void {
  steps.forEach(([rps, ms, failed = 0, dropped = 0], i) => {
    for (const s of [0, 1]) judge.addSecond(i * 2 + s, second(rps, ms, failed, dropped));
  });
}

describe("CapacityJudge", () => {
  it("stops at the first failing step once the next confirms it", () => {
    const judge = new CapacityJudge(load(), ["cap"], "req/s");
    expect(judge.rates).toEqual([100, 200, 300, 400, 500]);
    feed(judge, [
      [100, 10],
      [200, 20],
      [300, 150],
    ]);
    expect(judge.done).toBe(false);
    feed(judge, [
      [100, 10],
      [200, 20],
      [300, 150],
      [400, 300],
    ]);
    const result = judge.result();
    expect(result).toMatchObject({
      sustainedRate: 200,
      breakingRate: 300,
      limitedBy: "p95",
      searching: false,
    });
    expect(result.steps.map((s) => s.ok)).toEqual([true, true, false, false]);
    expect(result.steps[1]).toMatchObject({ achievedRps: 200, errorRate: 0, p95: 20 });
    expect(result.sentence).toMatch(
      /^Sustains 200 req\/s with p95 20\.\d ms; at 300 req\/s p95 15\d ms \(SLO p95 <100ms\)\.$/,
    );
  });

  it("a failing step the next one contradicts is noise; errors and drops say what limited", () => {
    const judge = new CapacityJudge(load(), ["cap"], "req/s");
    feed(judge, [
      [100, 10],
      [200, 10, 10],
      [300, 10],
      [400, 10, 40],
      [500, 10, 50],
    ]);
    const result = judge.result();
    expect(result.steps.map((s) => [s.ok, s.noise])).toEqual([
      [true, false],
      [false, true],
      [true, false],
      [false, false],
      [false, false],
    ]);
    expect(result).toMatchObject({ sustainedRate: 300, breakingRate: 400, limitedBy: "errorRate" });
    expect(result.sentence).toContain("at 400 req/s 10.0 % errors (SLO errorRate <1%)");

    const starved = new CapacityJudge(load({ confirm: false }), ["cap"], "req/s");
    feed(starved, [
      [100, 10],
      [180, 10, 0, 20],
    ]);
    expect(starved.result()).toMatchObject({ sustainedRate: 100, breakingRate: 200, limitedBy: "maxVus" });
    expect(starved.result().sentence).toContain(
      "the generator ran out of VUs (maxVus 50, 40 iterations dropped)",
    );
  });

  it("iterations due before a thread began are the late-start warning's, not a want of VUs", () => {
    /** A first step whose first second dropped 3 iterations, `late` of them due before the thread began. */
    const firstStep = (late: number) => {
      const judge = new CapacityJudge(load({ confirm: false }), ["cap"], "req/s");
      const first = second(97, 5, 0, 3);
      const recorder = new RequestRecorder(lateStartStatsName(null), LATE_START_METHOD);
      for (let i = 0; i < late; i++) recorder.record(35_000, 0, 0, 0);
      if (late) first.add([recorder.flush()]);
      judge.addSecond(0, first);
      judge.addSecond(1, second(100, 5));
      return judge.result().steps[0];
    };
    // 3 of 200 planned is over the 1 %: out of VUs, unless the thread began late.
    expect(firstStep(0)).toMatchObject({ dropped: 3, ok: false, failedOn: "maxVus" });
    expect(firstStep(3)).toMatchObject({ dropped: 0, ok: true, failedOn: null });
    expect(firstStep(1)).toMatchObject({ dropped: 2, ok: true });
  });

  it("passing every step up to maxRate says the capacity is above it; a stop before says so", () => {
    const judge = new CapacityJudge(load({ maxRate: 250 }), ["cap"], "req/s");
    expect(judge.rates).toEqual([100, 200, 250]);
    feed(judge, [
      [100, 5],
      [200, 5],
      [250, 5],
    ]);
    expect(judge.result()).toMatchObject({ sustainedRate: 250, breakingRate: null, limitedBy: "maxRate" });
    expect(judge.result().sentence).toContain("the highest rate tried (maxRate): the capacity is above it");

    // A step in which nothing was measured meets nothing.
    const silent = new CapacityJudge(load({ confirm: false }), ["cap"], "req/s");
    feed(silent, [
      [100, 5],
      [0, 5],
    ]);
    expect(silent.result()).toMatchObject({ sustainedRate: 100, breakingRate: 200, limitedBy: "noData" });
    expect(silent.result().sentence).toContain("at 200 req/s nothing was measured");

    const stopped = new CapacityJudge(load(), ["cap"], "req/s");
    feed(stopped, [[100, 5]]);
    expect(stopped.result()).toMatchObject({ sustainedRate: 100, limitedBy: "stopped", searching: true });
    expect(stopped.result().sentence).toMatch(/^Searching: 1 of at most 5 steps judged; sustains 100 req\/s/);
  });
});
