import { describe, expect, it } from "vitest";
import { RequestAggregate } from "./request-aggregate.js";
import { RequestRecorder } from "./request-recorder.js";
import { StatsAggregate } from "./stats-aggregate.js";

function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Nearest-rank percentile of a sorted array: the smallest value with at least p% of values <= it. */
function exactPercentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe("percentiles", () => {
  it.each([1, 2, 3])("match the exact sorted-array answer within 0.1%% (seed %i)", (seed) => {
    const random = seeded(seed);
    const recorders = [new RequestRecorder("r", "GET"), new RequestRecorder("r", "GET")];
    const values: number[] = [];
    for (let i = 0; i < 50_000; i++) {
      const us = Math.round(50 + (random() < 0.95 ? random() * 20_000 : random() * 3_000_000));
      values.push(us);
      recorders[i % 2].record(us, 200, 10, 10);
    }
    const aggregate = new RequestAggregate("r", "GET");
    for (const recorder of recorders) aggregate.add(recorder.flush());
    values.sort((a, b) => a - b);
    for (const p of [50, 75, 90, 95, 99, 99.9]) {
      const exact = exactPercentile(values, p);
      const measured = aggregate.percentileUs(p);
      expect(Math.abs(measured - exact) / exact).toBeLessThanOrEqual(0.001);
    }
    const summary = aggregate.latencySummary();
    expect(summary.min).toBe(values[0] / 1000);
    expect(summary.max).toBe(values[values.length - 1] / 1000);
    expect(summary.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length / 1000, 2);
  });
});

describe("RequestRecorder", () => {
  it("counts requests, failures, bytes, status codes and errors, then starts a new period", () => {
    const recorder = new RequestRecorder("login", "POST");
    recorder.record(1000, 200, 100, 50);
    recorder.record(2000, 500, 80, 50, "status", "unexpected status 500");
    recorder.record(3000, 0, 0, 50, "connect", "connect ECONNREFUSED 127.0.0.1:1");
    const stats = recorder.flush();
    expect(stats).toMatchObject({
      name: "login",
      method: "POST",
      requests: 3,
      failures: 2,
      bytesIn: 180,
      bytesOut: 150,
      statusCodes: { "200": 1, "500": 1 },
      latency: { sumUs: 6000, minUs: 1000, maxUs: 3000 },
    });
    expect(stats.errors).toHaveLength(2);
    expect(recorder.isEmpty).toBe(true);
    expect(recorder.flush()).toMatchObject({
      requests: 0,
      statusCodes: {},
      errors: [],
      latency: { histogram: "" },
    });
  });

  it("bounds error messages per kind", () => {
    const recorder = new RequestRecorder("r", "GET");
    for (let i = 0; i < 100; i++) recorder.record(1, 0, 0, 0, "connect", `refused port ${i}`);
    const errors = recorder.flush().errors;
    expect(errors).toHaveLength(10);
    expect(errors.reduce((sum, e) => sum + e.count, 0)).toBe(100);
  });

  it("keeps the phases across periods until they are due, then carries them all once", () => {
    const recorder = new RequestRecorder("r", "GET");
    recorder.record(5000, 200, 1, 1);
    recorder.recordPhases(300, 0, 4000);
    expect(recorder.flush(false).timings).toBeUndefined();
    expect(recorder.isEmpty).toBe(true);
    expect(recorder.holdsPhases).toBe(true);
    recorder.record(6000, 200, 1, 1);
    recorder.recordPhases(0, 0, 5000);
    const due = recorder.flush(true);
    expect(due.requests).toBe(1);
    const aggregate = new RequestAggregate("r", "GET");
    aggregate.add(due);
    const phases = aggregate.phaseSummary();
    expect(phases?.count).toBe(2);
    // Both periods' waits, to the phases' 1 %: the first period's was kept, not dropped.
    expect(phases?.waitingMs.p50).toBeCloseTo(4, 1);
    expect(phases?.waitingMs.p99).toBeCloseTo(5, 1);
    expect(recorder.holdsPhases).toBe(false);
    expect(recorder.flush(true).timings).toBeUndefined();
  });
});

describe("StatsAggregate", () => {
  it("summarizes per request and in total, in scenario order", () => {
    const login = new RequestRecorder("login", "POST");
    const order = new RequestRecorder("order", "POST");
    login.record(10_000, 200, 1, 1);
    order.record(20_000, 201, 1, 1);
    order.record(30_000, 500, 1, 1, "status", "500");
    const aggregate = new StatsAggregate();
    aggregate.add([order.flush(), login.flush()], 4);
    const summary = aggregate.summarize(2, ["login", "order"]);
    expect(summary.requests.map((r) => r.name)).toEqual(["login", "order"]);
    expect(summary.total).toMatchObject({ requests: 3, failures: 1, dropped: 4, rps: 1.5 });
    expect(summary.total.latencyMs.min).toBe(10);
    expect(summary.total.latencyMs.max).toBe(30);
    expect(summary.statusCodes).toEqual({ "200": 1, "201": 1, "500": 1 });
    expect(summary.errors).toEqual([{ kind: "status", message: "500", count: 1, request: "order" }]);
  });
});

describe("the slowest traced requests", () => {
  it.each([1, 2, 3])(
    "merged from many recorders are the five slowest of all, ties by trace id (seed %i)",
    (seed) => {
      const random = seeded(seed);
      const id = (n: number) => n.toString(16).padStart(32, "0");
      const all: { traceId: string; ms: number }[] = [];
      const aggregate = new RequestAggregate("r", "GET");
      // 60 periods of 40 requests each, latencies on a coarse grid so that ties happen.
      for (let period = 0; period < 60; period++) {
        const recorder = new RequestRecorder("r", "GET");
        for (let i = 0; i < 40; i++) {
          const us = 1000 * Math.floor(random() * 300);
          const traceId = id(period * 40 + i);
          recorder.record(us, 200, 1, 1, undefined, undefined, traceId);
          all.push({ traceId, ms: us / 1000 });
        }
        aggregate.add(recorder.flush());
      }
      const expected = all
        .sort((a, b) => b.ms - a.ms || (a.traceId < b.traceId ? -1 : 1))
        .slice(0, 5)
        .map((t) => [t.traceId, t.ms]);
      expect(aggregate.slowest.map((t) => [t.traceId, t.ms])).toEqual(expected);
      // A merge of merges agrees, and the text it sends on reads back the same.
      const again = new RequestAggregate("r", "GET");
      again.add(aggregate.toStats());
      expect(again.slowest).toEqual(aggregate.slowest);
    },
  );
});
