// pnpm bench storage [--duration 30] [--names 10] [--vus 20]
// What a run costs the database per hour: `volley run` (its own master and worker, SQLite in a
// scratch folder) against nginx with N request names for D seconds, then the stored rows are
// measured: per-second rows with their merged statistics (the exact-window histograms), the
// aggregates, and the file. Goal: <= 30 MB per run-hour at 10 request names on SQLite.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, fmt, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = Number(arg(args, "duration", "30"));
const names = Number(arg(args, "names", "10"));
const vus = Number(arg(args, "vus", "20"));
const nginx = await startNginx({ core: 1 });
const dir = mkdtempSync(join(tmpdir(), "volley-storage-"));
const scenario = join(dir, "storage.json");
writeFileSync(
  scenario,
  JSON.stringify({
    name: "storage",
    target: nginx.url,
    load: { executor: "constant-vus", vus, duration: `${duration}s` },
    thinkTime: "2ms",
    requests: Array.from({ length: names }, (_, i) => ({ name: `request-${i}`, path: `/hello?n=${i}` })),
  }),
);
const db = join(dir, "volley.db");
await run(process.execPath, [join(ROOT, "apps/cli/dist/bin.js"), "run", scenario, "--threads", "1"], {
  cwd: dir,
  env: { ...process.env, DATABASE_URL: `file:${db}`, VOLLEY_LOG_LEVEL: "warn" },
});
await nginx.stop();
const Database = createRequire(join(ROOT, "bench/package.json"))("better-sqlite3");
const sqlite = new Database(db, { readonly: true });
const seconds = sqlite
  .prepare(
    "SELECT COUNT(*) AS rows, SUM(LENGTH(stats)) AS stats, SUM(LENGTH(name) + 48) AS rest, MAX(second) + 1 AS seconds, SUM(requests) AS requests FROM RunSecond WHERE stats IS NOT NULL",
  )
  .get();
const other = sqlite
  .prepare("SELECT SUM(LENGTH(name) + 48) AS bytes FROM RunSecond WHERE stats IS NULL")
  .get();
const aggregates = sqlite.prepare("SELECT SUM(LENGTH(stats)) AS bytes FROM RunAggregate").get();
sqlite.close();
const perHour = (bytes) => (bytes / seconds.seconds) * 3600;
const mb = (bytes) => `${fmt(bytes / 1e6, 1)} MB`;
const rowBytes = seconds.stats + seconds.rest + (other.bytes ?? 0);
console.log(
  `\n${table([
    ["what", `this run (${seconds.seconds} s)`, "per run-hour"],
    ["per-second stats (exact windows)", mb(seconds.stats), mb(perHour(seconds.stats))],
    [
      "per-second rows (counts, percentiles)",
      mb(seconds.rest + (other.bytes ?? 0)),
      mb(perHour(seconds.rest + (other.bytes ?? 0))),
    ],
    ["whole-run aggregates", mb(aggregates.bytes ?? 0), "(fixed)"],
    ["SQLite file", mb(statSync(db).size), mb(perHour(statSync(db).size))],
  ])}`,
);
console.log(
  `\n${names} request names, ${fmt(seconds.requests)} requests: ${fmt(seconds.stats / seconds.rows)} bytes of statistics per name-second; rows ${mb(perHour(rowBytes))} per run-hour (goal <= 30 MB)`,
);
