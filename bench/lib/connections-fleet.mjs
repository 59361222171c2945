// `pnpm bench connections`: a real master and a real `volley worker` process (connected over
// WebSocket, publishing its stats through the queue), running many VUs against nginx. The
// worker's peak RSS is the kernel's high-water mark (VmHWM) of that process. Run with a raised
// file limit (see connections.mjs); prints the figures as JSON.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [url, vusText, threadsText, durationText, root] = process.argv.slice(2);
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
  const worker = start(["worker", "--master", masterUrl, "--name", "bench", "--threads", threadsText]);
  await until("the worker", async () => {
    const workers = await (await fetch(`${masterUrl}/api/workers`)).json();
    return workers.some((w) => w.name === "bench" && w.state === "ready");
  });
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
            rampUp: "5s",
          },
          requests: [{ path: "/hello" }],
          thinkTime: "1s",
          http: { keepAliveTimeout: "30s" },
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
  // The worker lives on after the run: its high-water mark covers the whole run.
  const status = readFileSync(`/proc/${worker.child.pid}/status`, "utf8");
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const port = new URL(url).port;
  const count = (state) =>
    execFileSync("ss", ["-Htan", "state", state, `( dport = :${port} )`], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean).length;
  process.stdout.write(
    JSON.stringify({
      status: run.status,
      requests: run.summary.total.requests,
      failures: run.summary.total.failures,
      errors: run.summary.errors,
      peakVus: run.workers[0]?.vus ?? 0,
      peakRssMb: peakKb / 1024,
      established: count("established"),
      timeWait: count("time-wait"),
    }),
  );
} finally {
  for (const child of children.reverse()) child.kill("SIGTERM");
  await sleep(1000);
}
