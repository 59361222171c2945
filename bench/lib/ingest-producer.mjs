// Simulated workers for `pnpm bench ingest`, in their own process: their sockets to the master
// (hello, heartbeats, the run's start and routing) and one batch per worker per simulated second
// pushed into the real queues at the offered rate, telling the parent when each second is enqueued.
import { randomBytes } from "node:crypto";
import { STATS_JOB, statsJobId, statsQueueName } from "@volley/protocol";
import { appendToPartition } from "@volley/worker";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import WebSocket from "ws";
import { ingestBatch } from "./ingest-batches.mjs";

let names = 20;
/** Which extras the batches carry (`--extras 1`, `--extras-parts`): empty for plain batches. */
let parts = new Set();

function batch(runId, workerId, workerIndex, second, final) {
  return ingestBatch({ runId, workerId, workerIndex, second, final, names, parts });
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
  parts = new Set(withExtras ? extrasParts : []);
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
