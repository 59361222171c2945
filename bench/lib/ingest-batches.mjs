// The stats batches `pnpm bench ingest` and `pnpm bench intake` send: per-second statistics of
// `names` requests as a worker cuts them, optionally with what tracing, phases and four custom
// metrics add (`extras`), each part on its own (`parts`: slowest, timings, metrics).
import { randomBytes } from "node:crypto";
import { encodeSlowest, PHASES_PERIOD_S } from "@volley/protocol";
import { createRecordingHistogram, encodeHistogram, MetricRecorder, PhaseTimings } from "@volley/stats";

export const EXTRAS_PARTS = ["slowest", "timings", "metrics"];

// What a traced, scripted run adds: each request's five slowest with trace ids and its phases
// (as a worker sends them: every PHASES_PERIOD_S seconds, the period's), and four custom metrics
// (a trend of 2,000 values, a counter, a rate, a gauge), encoded once. A slowest list is what
// one worker's second of 2,000 requests keeps: the five slowest of as many draws, so the lists
// of the workers differ as real ones do (a pool of them, like the histograms below).
const slowestLists = Array.from({ length: 64 }, (_, k) => {
  const draws = Array.from({ length: 2000 }, () =>
    Math.round(20_000 * Math.exp((Math.random() - 0.5) * 2 + k / 200)),
  ).sort((a, b) => b - a);
  return encodeSlowest(
    draws.slice(0, 5).map((us) => ({
      traceId: randomBytes(16).toString("hex"),
      ms: us / 1000,
      at: Date.now(),
      status: "200",
    })),
  );
});
const phases = new PhaseTimings(true);
for (let i = 0; i < 2000 * PHASES_PERIOD_S; i++)
  phases.record(i % 100 === 0 ? 300 : 0, 0, 15_000 + (i % 400) * 50);
const PHASES = phases.encode();
export const METRICS = (() => {
  const trend = new MetricRecorder("cart_ms", { type: "trend", unit: "ms" });
  const counter = new MetricRecorder("orders", { type: "counter", unit: "none" });
  const rate = new MetricRecorder("in_stock", { type: "rate", unit: "none" });
  const gauge = new MetricRecorder("queue_depth", { type: "gauge", unit: "none" });
  for (let i = 0; i < 2000; i++) {
    trend.add(5 + (i % 300) * 0.7);
    counter.add(1);
    rate.addRate(i % 10 !== 0);
    gauge.set(i % 50, Date.now());
  }
  return [trend, counter, rate, gauge].map((m) => m.flush());
})();

// A pool of realistic per-second histograms (log-normal-ish around 20 ms), encoded once.
const histograms = Array.from({ length: 64 }, (_, k) => {
  const h = createRecordingHistogram();
  let sum = 0;
  let min = Infinity;
  let max = 0;
  for (let i = 0; i < 2000; i++) {
    const us = Math.round(20_000 * Math.exp((Math.random() - 0.5) * 2 + k / 200));
    h.recordValue(us);
    sum += us;
    min = Math.min(min, us);
    max = Math.max(max, us);
  }
  return { histogram: encodeHistogram(h), sumUs: sum, minUs: min, maxUs: max };
});

/** One worker's batch of one second. `parts`: a Set of EXTRAS_PARTS (empty: a plain batch). */
export function ingestBatch({ runId, workerId, workerIndex, second, final, names, parts }) {
  return {
    runId,
    workerId,
    seq: second,
    second,
    final,
    vus: 1,
    dropped: 0,
    lostBatches: 0,
    elapsedMs: (second + 1) * 1000,
    sentAt: Date.now(),
    requests: Array.from({ length: names }, (_, n) => ({
      name: `request-${n}`,
      method: "GET",
      requests: 2000,
      failures: 0,
      bytesIn: 2000 * 200,
      bytesOut: 2000 * 100,
      statusCodes: { 200: 2000 },
      errors: [],
      latency: histograms[(second * 7 + n) % histograms.length],
      ...(parts.has("slowest")
        ? { slowest: slowestLists[(workerIndex * 31 + second * 7 + n) % slowestLists.length] }
        : {}),
      ...(parts.has("timings") && (final || (second + 1) % PHASES_PERIOD_S === 0) ? { timings: PHASES } : {}),
    })).concat(parts.has("metrics") ? METRICS : []),
  };
}
