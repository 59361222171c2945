import { formatThresholdActual, parseThreshold } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { compareSummaries } from "./compare.js";
import { MetricRecorder } from "./metric-recorder.js";
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

describe("thresholds on custom metrics", () => {
  function withMetrics() {
    const stats = new StatsAggregate();
    const cart = new MetricRecorder("cart_ms", { type: "trend", unit: "ms" });
    for (let ms = 1; ms <= 100; ms++) cart.add(ms);
    const stock = new MetricRecorder("in_stock", { type: "rate", unit: "none" });
    for (let i = 0; i < 100; i++) stock.addRate(i % 10 !== 0);
    const depth = new MetricRecorder("depth", { type: "gauge", unit: "none" });
    depth.set(-2, 1);
    stats.add([cart.flush(), stock.flush(), depth.flush()]);
    return stats.summarize(10);
  }

  it("judge a trend's percentiles, a rate as a ratio and a gauge's last value in their units", () => {
    const results = evaluateThresholds(
      {
        "metrics.cart_ms.p95": "<96",
        "metrics.cart_ms.max": "<=0.1s",
        "metrics.cart_ms.count": "==100",
        "metrics.in_stock.rate": ">=90%",
        "metrics.in_stock.fails": "<10",
        "metrics.depth.last": "<0",
      },
      withMetrics(),
    );
    expect(results.map((r) => [r.key, r.pass, r.actual])).toEqual([
      ["metrics.cart_ms.p95", true, expect.closeTo(95, 0)],
      ["metrics.cart_ms.max", true, 100],
      ["metrics.cart_ms.count", true, 100],
      ["metrics.in_stock.rate", true, 0.9],
      ["metrics.in_stock.fails", false, 10],
      ["metrics.depth.last", true, -2],
    ]);
  });

  it("fail as nothing measured on a metric the run did not record, or a figure its type does not have", () => {
    const results = evaluateThresholds(
      { "metrics.missing.count": ">0", "metrics.depth.p95": "<1", "metrics.in_stock.last": ">0" },
      withMetrics(),
    );
    expect(results.map((r) => [r.pass, r.actual])).toEqual([
      [false, null],
      [false, null],
      [false, null],
    ]);
  });

  it("refuse a figure no type has, a bad name, and units the figure cannot take", () => {
    expect(() => parseThreshold("metrics.cart_ms.p42", "<1")).toThrow(/metrics\.NAME\.STAT/);
    expect(() => parseThreshold("metrics.Cart.p95", "<1")).toThrow(/is not a metric name/);
    expect(() => parseThreshold("metrics.orders.count", ">10%")).toThrow(/not a ratio/);
    expect(() => parseThreshold("metrics.orders.count", ">10ms")).toThrow(/plain number/);
    expect(parseThreshold("metrics.in_stock.rate", ">0.99")).toMatchObject({
      custom: "in_stock",
      value: 0.99,
    });
    expect(formatThresholdActual({ key: "metrics.in_stock.rate", expression: ">1%", actual: 0.5 })).toBe(
      "50.00 %",
    );
  });
});

describe("compare with custom metrics", () => {
  it("puts each figure of A's and B's metrics side by side, never judged", () => {
    const run = (values: number[]) => {
      const stats = new StatsAggregate();
      const trend = new MetricRecorder("cart_ms", { type: "trend", unit: "ms" });
      for (const v of values) trend.add(v);
      stats.add([trend.flush()]);
      return stats.summarize(1);
    };
    const compared = compareSummaries(run([10, 20, 30]), run([20, 40, 60]));
    const cart = compared.metrics?.find((m) => m.name === "cart_ms");
    expect(cart).toMatchObject({ type: "trend", unit: "ms" });
    expect(cart?.metrics.max).toEqual({ a: 30, b: 60, delta: 30, ratio: 1, better: null });
    expect(cart?.metrics.count).toMatchObject({ a: 3, b: 3, delta: 0 });
  });
});
