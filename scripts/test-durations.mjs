#!/usr/bin/env node
// Prints how long each test file took, slowest first, from the JSON report `pnpm test` writes
// (test-results/vitest.json), with the total per suite: what to look at when CI nears its limit.
import { existsSync, readFileSync } from "node:fs";

const file = new URL("../test-results/vitest.json", import.meta.url);
if (!existsSync(file)) {
  console.log("test-durations: no test-results/vitest.json (the tests did not run)");
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const root = new URL("..", import.meta.url).pathname;
const files = report.testResults
  .map((result) => ({
    name: result.name.replace(root, ""),
    seconds: (result.endTime - result.startTime) / 1000,
    status: result.status,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const suite = (name) =>
  name.endsWith(".browser.test.ts")
    ? "browser"
    : name.endsWith(".int.test.ts")
      ? "integration"
      : name.endsWith(".service.test.ts")
        ? "service"
        : name.endsWith(".load.test.ts")
          ? "load"
          : "unit";
const totals = {};
for (const f of files) totals[suite(f.name)] = (totals[suite(f.name)] ?? 0) + f.seconds;
console.log("\nTest files by duration (s):");
for (const f of files.slice(0, 25))
  console.log(
    `  ${f.seconds.toFixed(1).padStart(7)}  ${f.name}${f.status === "passed" ? "" : `  (${f.status})`}`,
  );
console.log(
  `  ... ${files.length} files; per suite: ${Object.entries(totals)
    .map(([s, t]) => `${s} ${t.toFixed(0)} s`)
    .join(", ")}`,
);
