// pnpm bench ingest [--workers 200] [--names 20] [--rate 600] [--duration 20] [--db sqlite,postgresql]
// Simulated workers push stats batches (N names, each an HDR histogram of ~2,000 samples) through
// the real BullMQ queue into a real master, which stores, merges and checkpoints them. Prints the
// sustained batches/s stored and merged, the lag from a second's last batch to its merge, and the
// database growth. Goal: >= 500 batches/s with lag < 2 s, <= 20 MB per hour at 10 names.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMaster } from "@volley/master";
import { statsQueueName } from "@volley/protocol";
import BetterSqlite3 from "better-sqlite3";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import WebSocket from "ws";
import { arg, fmt, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const workerCount = Number(arg(args, "workers", "200"));
const names = Number(arg(args, "names", "20"));
const rate = Number(arg(args, "rate", "600"));
const duration = Number(arg(args, "duration", "20"));
const databases = arg(args, "db", "sqlite,postgresql").split(",");
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

async function databaseUrl(kind) {
  if (kind === "sqlite")
    return {
      url: `file:${join(mkdtempSync(join(tmpdir(), "volley-ingest-")), "volley.db")}`,
      drop: async () => {},
    };
  const admin = process.env.VOLLEY_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `volley_ingest_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Redis's own CPU seconds so far (user + system), from INFO cpu. */
async function redisCpuSeconds(redis) {
  const info = await redis.info("cpu");
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
  return field("used_cpu_user") + field("used_cpu_sys");
}

/** Bytes of the time series (grows with the run) and of everything else, tables and indexes. */
async function tableSizes(kind, url) {
  if (kind === "sqlite") {
    const db = new BetterSqlite3(url.slice("file:".length), { readonly: true });
    try {
      const rows = db.prepare("SELECT name, SUM(pgsize) AS size FROM dbstat GROUP BY name").all();
      const series = rows.filter((r) => r.name.includes("RunSecond")).reduce((a, r) => a + r.size, 0);
      const fixed = rows
        .filter((r) => /Run|RunAggregate|RunWorker/.test(r.name) && !r.name.includes("RunSecond"))
        .reduce((a, r) => a + r.size, 0);
      return { series, fixed };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const size = async (table) =>
    Number((await client.query(`SELECT pg_total_relation_size('"${table}"') AS s`)).rows[0].s);
  const result = {
    series: await size("RunSecond"),
    fixed: (await size("Run")) + (await size("RunAggregate")) + (await size("RunWorker")),
  };
  await client.end();
  return result;
}

/** Deleted batches stay as dead rows until vacuumed: measure what a long run would keep. */
async function vacuum(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("VACUUM FULL");
  await client.end();
}

/** Fake worker nodes: they say hello, beat, and accept the run, but send stats only through the queue. */
function connectWorkers(masterUrl, count) {
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const workerId = `sim-${i}-${randomBytes(3).toString("hex")}`;
      const socket = new WebSocket(`${masterUrl.replace("http", "ws")}/ws/worker`);
      const beat = () =>
        socket.readyState === WebSocket.OPEN &&
        socket.send(
          JSON.stringify({
            type: "heartbeat",
            state: "ready",
            runId: socket.runId ?? null,
            vus: 0,
            cpu: 1,
            machineCpu: 1,
            memoryMb: 50,
            eventLoopDelayMs: 1,
            sentAt: Date.now(),
          }),
        );
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === "start-run") {
          socket.runId = message.runId;
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
          socket.timer = setInterval(beat, 1000);
          setTimeout(() => resolve({ workerId, socket, beat }), 50);
        });
      });
    }),
  );
}

async function bench(kind) {
  const database = await databaseUrl(kind);
  const prefix = `bench-${randomBytes(3).toString("hex")}`;
  const master = await startMaster({
    port: 0,
    databaseUrl: database.url,
    queuePrefix: prefix,
    webRoot: null,
    logLevel: "error",
    startDelayMs: 500,
  });
  const workers = await connectWorkers(master.url, workerCount);
  for (const w of workers) w.beat();
  await new Promise((r) => setTimeout(r, 500));
  const response = await fetch(`${master.url}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      scenario: {
        name: "ingest",
        target: "http://127.0.0.1:9",
        load: { executor: "constant-vus", vus: workerCount, duration: "1h" },
        requests: Array.from({ length: names }, (_, n) => ({ name: `request-${n}`, path: "/" })),
      },
    }),
  });
  const { id: runId } = await response.json();
  if (kind === "postgresql") await vacuum(database.url);
  const sizeBefore = await master.services.db.sizeBytes();
  const aggregator = master.services.pipeline.active(runId);

  const seconds = Math.round((duration * rate) / workerCount);
  const enqueuedAt = new Map();
  const lags = [];
  let watched = -1;
  const watcher = setInterval(() => {
    while (aggregator.closedThrough > watched) {
      watched++;
      if (enqueuedAt.has(watched)) lags.push(Date.now() - enqueuedAt.get(watched));
    }
  }, 20);
  const started = Date.now();
  const storedBefore = master.services.intake.accepted;
  // CPU time over the measured window: the master runs in this process (the simulated workers
  // run in their own), Redis's from INFO cpu. Per merged batch, these are the figures that do
  // not depend on how fast this machine is.
  const redisInfo = new Redis(redisUrl);
  const cpuBefore = process.cpuUsage();
  const redisCpuBefore = await redisCpuSeconds(redisInfo);
  // The simulated workers run in their own process, as real ones would.
  const producer = fork(new URL("./lib/ingest-producer.mjs", import.meta.url).pathname);
  await new Promise((resolve, reject) => {
    producer.on("message", (message) => {
      if (message.second !== undefined) enqueuedAt.set(message.second, message.at);
      if (message.done) resolve();
    });
    producer.on("exit", (code) => (code ? reject(new Error(`producer exited ${code}`)) : resolve()));
    producer.send({
      redisUrl,
      prefix,
      runId,
      workerIds: workers.map((w) => w.workerId),
      names,
      rate,
      seconds,
    });
  });
  const producedS = (Date.now() - started) / 1000;
  const deadline = Date.now() + 120_000;
  while (aggregator.closedThrough < seconds - 1 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const drainedS = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisCpu = (await redisCpuSeconds(redisInfo)) - redisCpuBefore;
  redisInfo.disconnect();
  clearInterval(watcher);
  await master.services.pipeline.flushAll();
  const stored = master.services.intake.accepted - storedBefore;
  if (kind === "postgresql") await vacuum(database.url);
  const sizeAfter = await master.services.db.sizeBytes();
  const tables = await tableSizes(kind, database.url);
  const sorted = [...lags].sort((a, b) => a - b);
  const result = {
    kind,
    batches: stored,
    producedRate: (workerCount * seconds) / producedS,
    storedRate: stored / drainedS,
    lagP50: sorted[Math.floor(sorted.length / 2)] / 1000,
    lagMax: sorted.at(-1) / 1000,
    growthMb: (sizeAfter - sizeBefore) / 1024 / 1024,
    // What an hour keeps: the time series grows with seconds x names; aggregates and the run row
    // stay the same size however long the run is.
    perHourMb:
      ((tables.series / seconds) * 3600 * ((10 + 1) / (names + 1)) + tables.fixed * (10 / names)) /
      1024 /
      1024,
    seconds,
    pending: workerCount * seconds - stored,
    masterCpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, stored),
    redisCpuMs: (redisCpu * 1000) / Math.max(1, stored),
  };
  for (const w of workers) {
    clearInterval(w.socket.timer);
    w.socket.close();
  }
  const cleanup = new Queue(statsQueueName(runId), {
    connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
    prefix,
  });
  await cleanup.obliterate({ force: true }).catch(() => {});
  await cleanup.close();
  await master.close();
  await database.drop();
  return result;
}

console.log(
  `${workerCount} simulated workers x ${names} request names, ${rate} batches/s offered for ${duration}s\n`,
);
const results = [];
for (const kind of databases) {
  const r = await bench(kind);
  results.push(r);
  console.log(`${kind}: ${fmt(r.batches)} batches merged`);
}
console.log(
  `\n${table([
    [
      "database",
      "offered/s",
      "merged+durable/s",
      "lag p50",
      "lag max",
      "DB growth",
      "per hour at 10 names",
      "not merged",
      "master CPU/batch",
      "Redis CPU/batch",
    ],
    ...results.map((r) => [
      r.kind,
      fmt(r.producedRate),
      fmt(r.storedRate),
      `${r.lagP50.toFixed(2)} s`,
      `${r.lagMax.toFixed(2)} s`,
      `${r.growthMb.toFixed(1)} MB`,
      `${r.perHourMb.toFixed(1)} MB`,
      fmt(r.pending),
      `${r.masterCpuMs.toFixed(2)} ms`,
      `${r.redisCpuMs.toFixed(3)} ms`,
    ]),
  ])}`,
);
console.log(
  "\nGoal: >= 500 batches/s with lag < 2 s; <= 20 MB per hour of run at 10 request names; master CPU <= 0.5 ms per batch (#16).",
);
process.exit(0);
