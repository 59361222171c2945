// Helpers shared by the benchmarks: pinned processes, nginx, output tables.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;

export function has(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
}

/** The cores to pin the client and the server to (the same one on a single-core machine). */
export function cores() {
  const count = cpus().length;
  return { client: 0, server: count > 1 ? 1 : 0, count };
}

/** Prefix that pins a command to a core when taskset exists. */
export function pinned(core, command, args) {
  return has("taskset") ? ["taskset", ["-c", String(core), command, ...args]] : [command, args];
}

/** Runs a command to its end; resolves with its stdout. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"], ...options });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${out}`)),
    );
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Response bodies nginx serves under /size/NAME (a published wrk study swept 0 B to 332 KB). */
export const SIZES = { 0: 0, "1k": 1024, "32k": 32 * 1024, "332k": 332 * 1024 };

/**
 * nginx answering `return 200 "hello world"` on `host` (loopback unless told: a test host's address
 * when `prefix` starts it in a network namespace, `ip netns exec NS`), one worker pinned to `core`; or, with
 * `workers` > 1, that many unpinned workers sharing the port by `reuseport` (each holds
 * `connections / workers` of them: one process may not open more files than the hard limit).
 * Installs Debian's nginx-light when nginx is missing (root only).
 */
export async function startNginx({ core, connections = 4096, workers = 1, host = "127.0.0.1", prefix = [] }) {
  if (!has("nginx")) {
    console.log("installing nginx-light ...");
    execFileSync("sh", [
      "-c",
      "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null",
    ]);
  }
  const dir = mkdtempSync(join(tmpdir(), "volley-nginx-"));
  const port = await freePort();
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
worker_processes ${workers};
${workers === 1 ? `worker_cpu_affinity ${"0".repeat(Math.max(0, cpus().length - core - 1))}1${"0".repeat(core)};` : ""}
worker_rlimit_nofile ${Math.min(Math.ceil(connections / workers) + 2048, hardFileLimit())};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${Math.min(Math.ceil(connections / workers) + 1024, hardFileLimit() - 100)}; multi_accept on; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen ${host}:${port} backlog=65535${workers > 1 ? " reuseport" : ""};
    location / { default_type text/plain; return 200 "hello world"; }
    # The response-size sweep: files of 0 B, 1 KiB, 32 KiB and 332 KiB.
    location /size/ { alias ${dir}/size/; }
  }
}
`,
  );
  // nginx's workers run as nobody: the files must be readable by everyone.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "size"), { mode: 0o755 });
  for (const [name, bytes] of Object.entries(SIZES)) {
    writeFileSync(join(dir, "size", name), "x".repeat(bytes), { mode: 0o644 });
  }
  const command = [...prefix, "nginx", "-p", dir, "-c", join(dir, "nginx.conf")];
  const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
  for (let i = 0; i < 50; i++) {
    try {
      const response = await fetch(`http://${host}:${port}/hello`);
      if (response.ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://${host}:${port}`,
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGQUIT");
      }),
  };
}

/** The hard limit of open files here (a sandbox may not let it be raised). */
export function hardFileLimit() {
  const out = spawnSync("sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }).stdout.trim();
  return out === "unlimited" ? 1_048_576 : Number(out) || 1024;
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r) =>
      r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  "),
    )
    .join("\n");
}

export function fmt(n, digits = 0) {
  return Number(n).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function arg(args, name, fallback) {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
}

/**
 * Measures each mode `rounds` times, the order alternated each round (after one warm-up of the
 * last mode), prints each round and a table of means beside the first mode (the reference).
 * `measure(mode)` resolves with a rate; `unit` names it ("calls/s").
 */
export async function interleavedRounds({ modes, labels, measure, rounds, unit, goal }) {
  const [reference] = modes;
  await measure(modes.at(-1)); // warm-up
  const results = Object.fromEntries(modes.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? modes : [...modes].reverse();
    for (const mode of order) results[mode].push(await measure(mode));
    console.log(
      `round ${round + 1}: ${modes.map((m) => `${m} ${fmt(results[m].at(-1))}`).join(", ")} ${unit}`,
    );
  }
  const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
  const ratio = (mode) => mean(results[mode]) / mean(results[reference]);
  console.log(
    `\n${table([["client", `${unit} (mean)`, `÷ ${reference}`], ...modes.map((m) => [labels[m], fmt(mean(results[m])), ratio(m).toFixed(2)])])}`,
  );
  const [compared] = modes.slice(1);
  console.log(
    `\n${labels[compared]} / ${labels[reference]} = ${ratio(compared).toFixed(2)} (goal >= ${goal})`,
  );
}
