// Simulated workers for `pnpm bench ingest`: pushes one batch per worker per simulated second
// into the real queue at the offered rate, and tells the parent when each second is enqueued.
import { STATS_JOB, statsJobId, statsQueueName } from "@volley/protocol";
import { createRecordingHistogram, encodeHistogram } from "@volley/stats";
import { Queue } from "bullmq";
import { Redis } from "ioredis";

let names = 20;

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

function batch(runId, workerId, second, final) {
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
    })),
  };
}

process.once("message", async ({ redisUrl, prefix, runId, workerIds, names: nameCount, rate, seconds }) => {
  names = nameCount;
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(statsQueueName(runId), { connection, prefix });
  const started = Date.now();
  for (let second = 0; second < seconds; second++) {
    const due = started + (second * workerIds.length * 1000) / rate;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const jobs = workerIds.map((workerId) => ({
      name: STATS_JOB,
      data: batch(runId, workerId, second, second === seconds - 1),
      opts: { jobId: statsJobId(runId, workerId, second), removeOnComplete: true, attempts: 10 },
    }));
    for (let i = 0; i < jobs.length; i += 200) await queue.addBulk(jobs.slice(i, i + 200));
    process.send({ second, at: Date.now() });
  }
  process.send({ done: true });
  await queue.close();
  connection.disconnect();
  process.disconnect();
});
