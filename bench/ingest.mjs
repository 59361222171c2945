// pnpm bench ingest [--workers 200] [--names 20] [--rate 600] [--duration 20] [--db sqlite,postgresql]
//                   [--aggregators 0,2] [--extras 0] [--extras-parts slowest,timings,metrics]
// Simulated workers push stats batches (N names, each an HDR histogram of ~2,000 samples) through
// the real BullMQ queue into a real master, which stores, merges and checkpoints them. Prints the
// sustained batches/s stored and merged, the lag from a second's last batch to its merge, and the
// database growth. Goal: >= 500 batches/s with lag < 2 s, <= 20 MB per hour at 10 names.
import { fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMaster } from "@volley/master";
import { aggregatorsKey, statsQueueName } from "@volley/protocol";
import BetterSqlite3 from "better-sqlite3";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { arg, fmt, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const workerCount = Number(arg(args, "workers", "200"));
const names = Number(arg(args, "names", "20"));
const rate = Number(arg(args, "rate", "600"));
const duration = Number(arg(args, "duration", "20"));
const databases = arg(args, "db", "sqlite,postgresql").split(",");
// Each database is measured straight (0: workers push into the run's queue) and through N
// `volley aggregator` processes, side by side.
const aggregatorCounts = arg(args, "aggregators", "0,2").split(",").map(Number);
// 1: the batches also carry what a traced, scripted run adds (each request's five slowest with
// trace ids and its phases, four custom metrics); "0,1" measures both side by side.
const extrasModes = arg(args, "extras", "0")
  .split(",")
  .map((v) => v === "1");
// Which extras the batches carry, to price each apart: any of slowest, timings, metrics.
const extrasParts = arg(args, "extras-parts", "slowest,timings,metrics").split(",");
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

/** CPU seconds a process has used so far (user + system), from /proc. */
function processCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

/** N `volley aggregator` processes on the bench's prefix, resolved once they all beat. */
async function startAggregators(count, prefix) {
  const cli = new URL("../apps/cli/dist/bin.js", import.meta.url).pathname;
  const children = Array.from({ length: count }, (_, i) =>
    spawn(
      process.execPath,
      [
        ...(process.env.VOLLEY_BENCH_PROFILE
          ? ["--cpu-prof", `--cpu-prof-dir=${process.env.VOLLEY_BENCH_PROFILE}`]
          : []),
        cli,
        "aggregator",
        "--prefix",
        prefix,
        "--partition",
        `bench-${i}`,
      ],
      {
        env: { ...process.env, REDIS_URL: redisUrl, VOLLEY_LOG_LEVEL: "warn" },
        stdio: ["ignore", "ignore", "inherit"],
      },
    ),
  );
  const redis = new Redis(redisUrl);
  for (let tries = 0; tries < 200; tries++) {
    if ((await redis.zcard(aggregatorsKey(prefix))) >= count) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  redis.disconnect();
  return children;
}

async function bench(kind, aggregatorCount, extras) {
  const database = await databaseUrl(kind);
  const prefix = `bench-${randomBytes(3).toString("hex")}`;
  const aggregators = await startAggregators(aggregatorCount, prefix);
  const master = await startMaster({
    port: 0,
    databaseUrl: database.url,
    queuePrefix: prefix,
    webRoot: null,
    logLevel: "error",
    startDelayMs: 500,
  });
  // The simulated workers (their sockets and their batches) run in their own process, as real
  // ones would: the master's CPU figures are the master's alone.
  const producer = fork(new URL("./lib/ingest-producer.mjs", import.meta.url).pathname);
  const messages = [];
  const waiters = [];
  producer.on("message", (message) => {
    messages.push(message);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const next = async (key) => {
    for (;;) {
      const index = messages.findIndex((m) => m[key] !== undefined);
      if (index >= 0) return messages.splice(index, 1)[0];
      await new Promise((resolve) => waiters.push(resolve));
    }
  };
  producer.send({ connect: { masterUrl: master.url, count: workerCount } });
  await next("connected");
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
        // Custom metrics come from scripts: a run with extras is a scripted one.
        ...(extras && { requests: undefined, script: "bench.js" }),
      },
      ...(extras && {
        scripts: { "bench.js": "export default async function (vu) { await vu.http.get('/'); }" },
      }),
    }),
  });
  const { id: runId } = await response.json();
  await next("started");
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
  const groupsBefore = master.services.intake.groups;
  const aggregatorCpuBefore = aggregators.map((a) => processCpuSeconds(a.pid));
  // CPU time over the measured window: the master runs in this process (the simulated workers
  // run in their own), Redis's from INFO cpu. Per merged batch, these are the figures that do
  // not depend on how fast this machine is.
  const redisInfo = new Redis(redisUrl);
  const cpuBefore = process.cpuUsage();
  const redisCpuBefore = await redisCpuSeconds(redisInfo);
  producer.send({ push: { redisUrl, prefix, runId, names, rate, seconds, extras, extrasParts } });
  for (;;) {
    const message = await next("at");
    if (message.done) break;
    enqueuedAt.set(message.second, message.at);
  }
  const producedS = (Date.now() - started) / 1000;
  const deadline = Date.now() + 120_000;
  while (aggregator.closedThrough < seconds - 1 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const drainedS = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisCpu = (await redisCpuSeconds(redisInfo)) - redisCpuBefore;
  const aggregatorCpu = aggregators.reduce(
    (sum, a, i) => sum + processCpuSeconds(a.pid) - aggregatorCpuBefore[i],
    0,
  );
  redisInfo.disconnect();
  clearInterval(watcher);
  await master.services.pipeline.flushAll();
  const stored = master.services.intake.accepted - storedBefore;
  if (kind === "postgresql") await vacuum(database.url);
  const sizeAfter = await master.services.db.sizeBytes();
  const tables = await tableSizes(kind, database.url);
  const sorted = [...lags].sort((a, b) => a - b);
  const groups = master.services.intake.groups - groupsBefore;
  const result = {
    kind: aggregatorCount ? `${kind}, ${aggregatorCount} aggregators` : kind,
    groups,
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
    aggregatorCpuMs: aggregatorCount ? (aggregatorCpu * 1000) / Math.max(1, stored) : null,
    // What the master receives: a job per batch straight, a job per group through aggregators.
    masterJobs: aggregatorCount ? groups : stored,
    masterCpuPerJobMs: (cpu.user + cpu.system) / 1000 / Math.max(1, aggregatorCount ? groups : stored),
  };
  producer.send({ close: true });
  await new Promise((resolve) => producer.once("exit", resolve));
  const cleanup = new Queue(statsQueueName(runId), {
    connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
    prefix,
  });
  await cleanup.obliterate({ force: true }).catch(() => {});
  await cleanup.close();
  await master.close();
  for (const child of aggregators) child.kill("SIGTERM");
  await database.drop();
  return result;
}

console.log(
  `${workerCount} simulated workers x ${names} request names, ${rate} batches/s offered for ${duration}s\n`,
);
const results = [];
for (const kind of databases) {
  for (const count of aggregatorCounts) {
    for (const extras of extrasModes) {
      const r = await bench(kind, count, extras);
      if (extras) r.kind += " + extras";
      results.push(r);
      console.log(`${r.kind}: ${fmt(r.batches)} batches merged${count ? ` in ${fmt(r.groups)} groups` : ""}`);
    }
  }
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
      "master jobs",
      "master CPU/job",
      "aggregators' CPU/batch",
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
      `${r.masterCpuMs.toFixed(3)} ms`,
      fmt(r.masterJobs),
      `${r.masterCpuPerJobMs.toFixed(2)} ms`,
      r.aggregatorCpuMs === null ? "-" : `${r.aggregatorCpuMs.toFixed(2)} ms`,
      `${r.redisCpuMs.toFixed(3)} ms`,
    ]),
  ])}`,
);
console.log(
  "\nGoal: >= 500 batches/s with lag < 2 s; <= 20 MB per hour of run at 10 request names; master CPU <= 0.5 ms per batch (#16).",
);
process.exit(0);
