#!/usr/bin/env node
// `pnpm bench <name> [options]`: benchmarks that print Volley's figures beside a reference tool
// measured in the same run. Build first (`pnpm build`).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const BENCHES = {
  engine: "one engine thread vs autocannon, wrk and hey (Go) against nginx, pinned to cores",
  connections: "10,000 VUs in one worker process: peak memory, errors, sockets left open",
  overhead: "what measuring costs: statistics, http.tracing, 4 custom metrics per iteration",
  ingest: "simulated workers pushing batches through the real queue into the master (SQLite and PostgreSQL)",
  feeders: "what a 1,000,000-row feeder costs a worker per mode (memory, time to ready)",
  h2: "HTTP/2 (TLS and h2c): Volley's own client vs undici's, node's own http2 client and h2load",
  storage: "what a run stores per hour (per-second statistics for exact windows) on SQLite",
  script: "scripted VUs (await vu.http.get) vs the same declarative load, one pinned thread",
  ws: "WebSocket round trips: scripted VUs (vu.ws) vs a tight loop of the ws library, one pinned core",
  intake: "the master's intake of stats batches alone (parse, schema, check, merge), plain vs with extras",
  parser: "the HTTP/1.1 response parser alone: nginx's head, kept by a script, all heads different",
  grpc: "unary gRPC calls: a scenario's grpc: request vs a tight loop of grpc-js, one pinned core",
  threads: "volley run with 1 and 2 engine threads against a target on a test host (network namespace)",
};

const [name, ...args] = process.argv.slice(2);
if (!name || !(name in BENCHES)) {
  console.log("Usage: pnpm bench <name> [options]\n");
  for (const [bench, what] of Object.entries(BENCHES)) console.log(`  ${bench.padEnd(12)} ${what}`);
  process.exit(name ? 2 : 0);
}
if (!existsSync(new URL("../packages/engine/dist/index.js", import.meta.url))) {
  console.error("build first: pnpm build");
  process.exit(2);
}
const child = spawn(
  process.execPath,
  ["--expose-gc", new URL(`./${name}.mjs`, import.meta.url).pathname, ...args],
  {
    stdio: "inherit",
  },
);
child.on("exit", (code) => process.exit(code ?? 1));
