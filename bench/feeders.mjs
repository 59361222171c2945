// pnpm bench feeders [--rows 1000000] [--threads 2]
// What a feeder costs a worker: the memory of a 1,000,000-row feeder in each mode, as the engine
// holds it (unique: each thread keeps only its share; sequential and random: every thread keeps
// every row), and how long the worker takes to build its threads' tables. The reference is the
// same rows held as one plain array of strings in one process.
import { EngineRunner } from "@volley/engine";
import { parseDataFile } from "@volley/protocol";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rowCount = Number(arg("rows", "1000000"));
const threads = Number(arg("threads", "2"));

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const csv = `email,password,zone\n${Array.from({ length: rowCount }, (_, i) => `user${i}@example.test,pw-${i},zone-${i % 7}`).join("\n")}\n`;
console.log(
  `${rowCount.toLocaleString("en-US")} rows, ${mb(Buffer.byteLength(csv))} of CSV, ${threads} engine threads\n`,
);

globalThis.gc?.();
const base = process.memoryUsage();
const t0 = performance.now();
const table = parseDataFile("users.csv", csv);
const parseMs = performance.now() - t0;
globalThis.gc?.();
console.log(
  `parse (master and worker): ${parseMs.toFixed(0)} ms, the table holds ${mb(process.memoryUsage().heapUsed - base.heapUsed)} of heap`,
);

const results = [];
for (const mode of ["unique", "sequential"]) {
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const runner = new EngineRunner({
    scenario: {
      name: "feeder-memory",
      target: "http://127.0.0.1:9",
      data: { users: { file: "users.csv", mode } },
      load: { executor: "per-vu-iterations", vus: threads, iterations: 1 },
      requests: [{ path: "/{{data.users.email}}" }],
    },
    partition: [],
    threads,
    // Far in the future: the threads build their tables and wait; nothing is sent.
    startAtEpochMs: Date.now() + 60_000,
    workerName: "bench",
    data: { users: table },
    onPeriod: () => {},
  });
  await runner.ready();
  const readyMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rss = process.memoryUsage().rss - before;
  results.push([mode, readyMs, rss]);
  runner.stop();
  await runner.done().catch(() => {});
  globalThis.gc?.();
}
console.log("\nmode        threads ready   worker RSS added (threads' copies)");
for (const [mode, ms, rss] of results)
  console.log(`${mode.padEnd(11)} ${`${ms.toFixed(0)} ms`.padEnd(15)} ${mb(rss)}`);
