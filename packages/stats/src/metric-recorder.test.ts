import type { MetricKind, RequestStats } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { DecodedHistograms } from "./histogram/sparse-codec.js";
import { MetricRecorder } from "./metric-recorder.js";
import { checkRequestStats } from "./request-check.js";
import { StatsAggregate } from "./stats-aggregate.js";

const TREND: MetricKind = { type: "trend", unit: "ms" };
const COUNTER: MetricKind = { type: "counter", unit: "none" };
const RATE: MetricKind = { type: "rate", unit: "none" };
const GAUGE: MetricKind = { type: "gauge", unit: "none" };

/** Several threads' recorders of one metric, their periods merged as the master merges them. */
function merged(periods: RequestStats[][]): StatsAggregate {
  const stats = new StatsAggregate();
  for (const period of periods) stats.add(period);
  return stats;
}

describe("custom metrics", () => {
  it("merge a trend's values from several recorders into exact count, min, mean, max and percentiles", () => {
    const recorders = [new MetricRecorder("cart_ms", TREND), new MetricRecorder("cart_ms", TREND)];
    const values = Array.from({ length: 1000 }, (_, i) => i + 1); // 1..1000 ms
    values.forEach((value, i) => {
      recorders[i % 2].add(value);
    });
    const summary = merged([recorders.map((r) => r.flush())]).summarize(10).metrics?.cart_ms;
    expect(summary).toMatchObject({ type: "trend", unit: "ms", count: 1000, min: 1, max: 1000, mean: 500.5 });
    if (summary?.type !== "trend") throw new Error("not a trend");
    for (const [key, exact] of [
      ["p50", 500],
      ["p90", 900],
      ["p95", 950],
      ["p99", 990],
    ] as const) {
      expect(Math.abs(summary[key] - exact) / exact).toBeLessThanOrEqual(0.001);
    }
  });

  it("scale a trend by its unit: plain numbers to a thousandth, bytes whole and far past an hour's ms", () => {
    const plain = new MetricRecorder("ratio", { type: "trend", unit: "none" });
    plain.add(0.125);
    plain.add(0.5);
    const bytes = new MetricRecorder("body", { type: "trend", unit: "bytes" });
    bytes.add(2_000_000_000);
    const metrics = merged([[plain.flush(), bytes.flush()]]).summarize(1).metrics;
    expect(metrics?.ratio).toMatchObject({ min: 0.125, max: 0.5, mean: 0.3125 });
    expect(metrics?.body).toMatchObject({ min: 2_000_000_000, max: 2_000_000_000, unit: "bytes" });
  });

  it("sum counters, count a rate's values and keep the fleet's last gauge value by time", () => {
    const counters = [new MetricRecorder("orders", COUNTER), new MetricRecorder("orders", COUNTER)];
    counters[0].add(2);
    counters[1].add(0.5);
    counters[1].add(1);
    const rate = new MetricRecorder("in_stock", RATE);
    for (const pass of [true, true, false, true]) rate.addRate(pass);
    const early = new MetricRecorder("depth", GAUGE);
    const late = new MetricRecorder("depth", GAUGE);
    early.set(50, 2000);
    late.set(-3, 1000);
    late.set(7, 3000);
    early.set(90, 2500);
    // Merged in either order, the gauge's last is the value set last (7, at 3000).
    for (const order of [
      [early, late],
      [late, early],
    ]) {
      const stats = merged([
        [...counters.map((c) => c.flush()), rate.flush(), ...order.map((g) => g.flush())],
      ]);
      const metrics = stats.summarize(2).metrics;
      expect(metrics?.orders).toEqual({ type: "counter", count: 3.5, ratePerSecond: 1.75 });
      expect(metrics?.in_stock).toEqual({ type: "rate", passes: 3, fails: 1, rate: 0.75 });
      expect(metrics?.depth).toEqual({ type: "gauge", last: 7, min: -3, max: 90 });
      for (const recorder of [...counters, rate, early, late]) expect(recorder.isEmpty).toBe(true);
      counters[0].add(2);
      counters[1].add(0.5);
      counters[1].add(1);
      for (const pass of [true, true, false, true]) rate.addRate(pass);
      early.set(50, 2000);
      late.set(-3, 1000);
      late.set(7, 3000);
      early.set(90, 2500);
    }
  });

  it("are not requests: the run's totals leave them out", () => {
    const trend = new MetricRecorder("cart_ms", TREND);
    trend.add(5);
    const summary = merged([[trend.flush()]]).summarize(1);
    expect(summary.total.requests).toBe(0);
    expect(summary.requests).toEqual([]);
  });
});

describe("a batch's custom metrics are checked before they are merged", () => {
  const check = (stats: RequestStats[]) => checkRequestStats(stats, new DecodedHistograms());
  const flushed = (kind: MetricKind, name = "m") => {
    const recorder = new MetricRecorder(name, kind);
    if (kind.type === "rate") recorder.addRate(false);
    else if (kind.type === "gauge") recorder.set(1, 1);
    else recorder.add(3);
    return recorder.flush();
  };

  it("takes what the recorders send", () => {
    expect(check([TREND, COUNTER, RATE, GAUGE].map((kind, i) => flushed(kind, `m${i}`)))).toBeNull();
  });

  it.each([
    [
      "a bad metric name",
      { ...flushed(COUNTER), name: "\u0002metric:COUNTER:Bad-Name" },
      /is not a metric name/,
    ],
    ["a metric's method on a request", { ...flushed(COUNTER), name: "login" }, /not named as one/],
    ["a method its name does not say", { ...flushed(COUNTER), method: "RATE" }, /another method/],
    [
      "a gauge's figures on a counter",
      { ...flushed(COUNTER), gauge: { last: 1, atMs: 1, min: 1, max: 1 } },
      /gauge's figures/,
    ],
    ["a gauge without its figures", { ...flushed(GAUGE), gauge: undefined }, /without its figures/],
    ["a histogram on a rate", { ...flushed(RATE), latency: flushed(TREND).latency }, /no histogram/],
    ["status codes on a metric", { ...flushed(TREND), statusCodes: { "200": 1 } }, /no errors, status codes/],
    ["failures of a counter", { ...flushed(COUNTER), failures: 1 }, /has no failures/],
    [
      "a last value outside min and max",
      { ...flushed(GAUGE), gauge: { last: 9, atMs: 1, min: 1, max: 2 } },
      /do not add up/,
    ],
  ])("refuses %s", (_, forged, message) => {
    expect(check([forged as RequestStats])).toMatch(message);
  });

  it("refuses a name with two types in one batch, and more than 200 metrics", () => {
    expect(check([flushed(TREND, "x"), flushed(COUNTER, "x")])).toMatch(/appears as TREND:ms and COUNTER/);
    const many = Array.from({ length: 201 }, (_, i) => flushed(COUNTER, `m${i}`));
    expect(check(many)).toMatch(/more than 200 custom metrics/);
    expect(check(many.slice(0, 200))).toBeNull();
  });
});
