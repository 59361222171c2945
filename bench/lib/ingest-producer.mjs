// Simulated workers for `pnpm bench ingest`, in their own process: their sockets to the master
// (hello, heartbeats, the run's start and routing) and one batch per worker per simulated second
// pushed into the real queues at the offered rate, telling the parent when each second is enqueued.
import { randomBytes } from "node:crypto";
import { encodeSlowest, PHASES_PERIOD_S, STATS_JOB, statsJobId, statsQueueName } from "@volley/protocol";
import { createRecordingHistogram, encodeHistogram, MetricRecorder, PhaseTimings } from "@volley/stats";
import { appendToPartition } from "@volley/worker";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import WebSocket from "ws";

let names = 20;
/** Batches carry what tracing, phases and 4 custom metrics add (`--extras 1`). */
let extras = false;
/** Which extras (`--extras-parts slowest,timings,metrics`), to price each apart. */
let parts = new Set();

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
const METRICS = (() => {
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

function batch(runId, workerId, workerIndex, second, final) {
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
      ...(extras && parts.has("slowest")
        ? { slowest: slowestLists[(workerIndex * 31 + second * 7 + n) % slowestLists.length] }
        : {}),
      ...(extras && parts.has("timings") && (final || (second + 1) % PHASES_PERIOD_S === 0)
        ? { timings: PHASES }
        : {}),
    })).concat(extras && parts.has("metrics") ? METRICS : []),
  };
}

/** Fake worker nodes: they say hello, beat, and accept the run, but send stats only through the queue. */
function connectWorkers(masterUrl, count) {
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const workerId = `sim-${i}-${randomBytes(3).toString("hex")}`;
      const socket = new WebSocket(`${masterUrl.replace("http", "ws")}/ws/worker`);
      const worker = { workerId, socket, runId: null, route: null };
      worker.beat = () =>
        socket.readyState === WebSocket.OPEN &&
        socket.send(
          JSON.stringify({
            type: "heartbeat",
            state: worker.runId ? "running" : "ready",
            runId: worker.runId,
            vus: 0,
            cpu: 1,
            machineCpu: 1,
            memoryMb: 50,
            eventLoopDelayMs: 1,
            ...(worker.route ? { aggregator: worker.route } : {}),
            sentAt: Date.now(),
          }),
        );
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === "start-run") {
          worker.runId = message.runId;
          worker.route = message.aggregator ?? null;
          socket.send(JSON.stringify({ type: "run-accepted", runId: message.runId }));
        }
      });
      return new Promise((resolve) => {
        socket.on("open", () => {
          socket.send(
            JSON.stringify({
              type: "hello",
              workerId,
              name: workerId,
              host: "sim",
              threads: 1,
              cores: 1,
              version: "bench",
              pid: 0,
              local: false,
              activeRunId: null,
            }),
          );
          worker.timer = setInterval(worker.beat, 1000);
          setTimeout(() => resolve(worker), 50);
        });
      });
    }),
  );
}

async function push(
  { redisUrl, prefix, runId, names: nameCount, rate, seconds, extras: withExtras, extrasParts },
  workers,
) {
  names = nameCount;
  extras = withExtras;
  parts = new Set(extrasParts);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  // Each worker's batches go where the master routed it: the run's queue or an aggregator
  // partition's stream (as the worker's StatsPublisher sends them).
  const queue = new Queue(statsQueueName(runId), { connection, prefix });
  const started = Date.now();
  for (let second = 0; second < seconds; second++) {
    const due = started + (second * workers.length * 1000) / rate;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const jobs = [];
    const appends = [];
    for (const [index, { workerId, route }] of workers.entries()) {
      const data = batch(runId, workerId, index, second, second === seconds - 1);
      if (route !== null) appends.push(appendToPartition(connection, prefix, route, data));
      else
        jobs.push({
          name: STATS_JOB,
          data,
          opts: { jobId: statsJobId(runId, workerId, second), removeOnComplete: true, attempts: 10 },
        });
    }
    for (let i = 0; i < jobs.length; i += 200) await queue.addBulk(jobs.slice(i, i + 200));
    await Promise.all(appends);
    process.send({ second, at: Date.now() });
  }
  process.send({ at: Date.now(), done: true });
  await queue.close();
  connection.disconnect();
}

// The parent says: connect (the fleet joins the master), push (once the run started), close.
let workers = [];
process.on("message", async (message) => {
  if (message.connect) {
    workers = await connectWorkers(message.connect.masterUrl, message.connect.count);
    for (const w of workers) w.beat();
    process.send({ connected: true });
    const started = setInterval(() => {
      if (!workers.every((w) => w.runId)) return;
      clearInterval(started);
      process.send({ started: true });
    }, 20);
  } else if (message.push) {
    await push(message.push, workers);
  } else if (message.close) {
    for (const w of workers) {
      clearInterval(w.timer);
      w.socket.close();
    }
    process.disconnect();
    setTimeout(() => process.exit(0), 200);
  }
});
