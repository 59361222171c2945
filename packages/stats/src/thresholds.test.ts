import { describe, expect, it } from "vitest";
import { compareSummaries } from "./compare.js";
import { RequestRecorder } from "./request-recorder.js";
import { StatsAggregate } from "./stats-aggregate.js";
import { evaluateThresholds } from "./thresholds.js";

function summary(latenciesMs: number[], failures = 0) {
  const recorder = new RequestRecorder("login", "GET");
  latenciesMs.forEach((ms, i) => {
    recorder.record(ms * 1000, 200, 0, 0, i < failures ? "status" : undefined);
  });
  const aggregate = new StatsAggregate();
  aggregate.add([recorder.flush()]);
  return aggregate.summarize(1);
}

describe("evaluateThresholds", () => {
  it("passes and fails on the merged summary", () => {
    const s = summary([10, 20, 30, 40, 500], 1);
    const results = evaluateThresholds(
      { p50: "<100ms", p99: "<100ms", errorRate: "<1%", "max[login]": "<=0.5s", "p95[login]": ">1s" },
      s,
    );
    expect(results.map((r) => [r.key, r.pass])).toEqual([
      ["p50", true],
      ["p99", false],
      ["errorRate", false],
      ["max[login]", true],
      ["p95[login]", false],
    ]);
    expect(results[2].actual).toBeCloseTo(0.2);
  });

  it("fails a latency threshold when nothing was measured", () => {
    expect(evaluateThresholds({ p95: "<1s" }, summary([]))).toEqual([
      { key: "p95", expression: "<1s", actual: null, pass: false },
    ]);
  });
});

describe("compareSummaries", () => {
  it("gives deltas and which side is better", () => {
    const result = compareSummaries(summary([10, 10]), summary([20, 20], 1));
    expect(result.total.p50).toMatchObject({ a: 10, b: 20, delta: 10, ratio: 1, better: false });
    expect(result.total.errorRate).toMatchObject({ a: 0, b: 0.5, better: false });
    expect(result.requests[0].name).toBe("login");
  });
});
