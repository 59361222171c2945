// `pnpm bench connections`: a real master and real `volley worker` processes (connected over
// WebSocket, publishing their stats through the queue), running many VUs against nginx, spread
// over source addresses when given. Each worker's peak RSS is the kernel's high-water mark
// (VmHWM) of its process. Run with a raised file limit (see connections.mjs); prints the
// figures as JSON.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [
  url,
  vusText,
  threadsText,
  durationText,
  root,
  workersText = "1",
  localAddresses = "",
  think = "1s",
  hold = "0",
] = process.argv.slice(2);
const workerCount = Number(workersText);
const cli = join(root, "apps/cli/dist/bin.js");
const dir = mkdtempSync(join(tmpdir(), "volley-bench-"));
const env = {
  ...process.env,
  VOLLEY_LOG_LEVEL: "warn",
  DATABASE_URL: `file:${join(dir, "volley.db")}`,
  VOLLEY_QUEUE_PREFIX: `bench-${process.pid}`,
  REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
};
const children = [];
function start(args) {
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  children.push(child);
  return { child, output: () => output };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, check, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}
try {
  const master = start(["master", "--port", "0"]);
  const masterUrl = await until(
    "the master",
    async () => /Volley master on (\S+)/.exec(master.output())?.[1],
  );
  const workers = Array.from({ length: workerCount }, (_, i) =>
    start(["worker", "--master", masterUrl, "--name", `bench-${i + 1}`, "--threads", threadsText]),
  );
  await until("the workers", async () => {
    const ready = await (await fetch(`${masterUrl}/api/workers`)).json();
    return ready.filter((w) => w.name.startsWith("bench-") && w.state === "ready").length === workerCount;
  });
  // Each worker's resident memory before the run: the base its connections add to.
  const vm = (pid, field) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) /
    1024;
  const basesMb = workers.map((worker) => vm(worker.child.pid, "VmRSS"));
  const created = await (
    await fetch(`${masterUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        scenario: {
          name: "connections",
          target: url,
          load: {
            executor: "constant-vus",
            vus: Number(vusText),
            duration: `${durationText}s`,
            rampUp: workerCount > 1 ? "20s" : "5s",
            gracefulStop: "30s",
          },
          // With a hold, the target answers after it: every VU has its request in flight, on a
          // connection of its own, at once.
          requests: [{ path: hold === "0" ? "/hello" : `/hello?delay=${hold}` }],
          ...(hold === "0" ? { thinkTime: think } : { timeout: "60s" }),
          http: {
            keepAliveTimeout: "30s",
            ...(localAddresses ? { localAddresses: localAddresses.split(",") } : {}),
          },
        },
      }),
    })
  ).json();
  if (!created.id) throw new Error(`the run was refused: ${JSON.stringify(created)}`);
  const run = await until(
    "the run to end",
    async () => {
      const detail = await (await fetch(`${masterUrl}/api/runs/${created.id}`)).json();
      return ["finished", "failed", "aborted"].includes(detail.status) ? detail : undefined;
    },
    (Number(durationText) + 120) * 1000,
  );
  // The workers live on after the run: their high-water marks cover the whole run.
  const peaksMb = workers.map((worker) => vm(worker.child.pid, "VmHWM"));
  const port = new URL(url).port;
  const count = (state) =>
    execFileSync("ss", ["-Htan", "state", state, `( dport = :${port} )`], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    })
      .split("\n")
      .filter(Boolean).length;
  // Closing tens of thousands of sockets takes the kernel a moment after the run has ended:
  // wait (at most 10 s) until none is established, and say how long that took.
  const endedAt = Date.now();
  let established = count("established");
  while (established > 0 && Date.now() - endedAt < 10_000) {
    await sleep(200);
    established = count("established");
  }
  const closedInMs = Date.now() - endedAt;
  process.stdout.write(
    JSON.stringify({
      status: run.status,
      requests: run.summary.total.requests,
      failures: run.summary.total.failures,
      errors: run.summary.errors,
      message: run.error ?? null,
      peakVus: run.workers.reduce((sum, w) => sum + (w.vus ?? 0), 0),
      peakRssMb: Math.max(...peaksMb),
      peaksMb,
      basesMb,
      established,
      closedInMs,
      timeWait: count("time-wait"),
    }),
  );
} finally {
  for (const child of children.reverse()) child.kill("SIGTERM");
  await sleep(1000);
}
