// pnpm bench overhead [--duration 10] [--connections 50] [--rounds 2]
// What measuring costs the request path, each priced beside what it adds to, in rotating rounds
// against nginx on the other core:
//   full statistics (HDR histogram and phases per request) against counting only;
//   http.tracing (a traceparent per request, the slowest kept) against full statistics;
//   a script adding 4 custom metrics per iteration against the same script without them.
// The goal is <= 5 % each: measuring must not slow what it measures.
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const connections = arg(args, "connections", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();
const nginx = await startNginx({ core: server });

const MODES = {
  full: { label: "full statistics", args: [] },
  count: { label: "counting only", args: ["--count-only"] },
  tracing: {
    label: "full + http.tracing",
    args: ["--http", JSON.stringify({ tracing: { propagate: "w3c" } })],
  },
  script: { label: "scripted", args: ["--script"] },
  metrics: { label: "scripted + 4 metrics", args: ["--script", "--script-mode", "metrics"] },
};
const NAMES = Object.keys(MODES);

async function measure(mode) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    "--url",
    nginx.url,
    "--vus",
    connections,
    "--duration",
    duration,
    ...MODES[mode].args,
  ]);
  const result = JSON.parse(await run(cmd, cmdArgs));
  if (result.failures > 0)
    throw new Error(`${result.failures} failures: the bench is not measuring requests`);
  return result.rps;
}

await measure("full"); // warm-up
const results = Object.fromEntries(NAMES.map((mode) => [mode, []]));
for (let round = 0; round < rounds; round++) {
  // Rotate the order so drift on a noisy machine hits every mode alike.
  const order = NAMES.map((_, i) => NAMES[(i + round) % NAMES.length]);
  for (const mode of order) results[mode].push(await measure(mode));
  console.log(`round ${round + 1}: ${NAMES.map((m) => `${m} ${fmt(results[m].at(-1))}`).join(", ")} req/s`);
}
await nginx.stop();
const mean = (mode) => results[mode].reduce((a, b) => a + b, 0) / results[mode].length;
// Each round measures a mode and its base back to back: the median of the rounds' ratios resists
// this shared machine's swings (±15 % round to round) better than a ratio of means.
const cost = (mode, base) => {
  const ratios = results[mode].map((rps, i) => rps / results[base][i]).sort((a, b) => a - b);
  const middle = ratios.length / 2;
  const median = ratios.length % 2 ? ratios[Math.floor(middle)] : (ratios[middle - 1] + ratios[middle]) / 2;
  return `${((1 - median) * 100).toFixed(1)} %`;
};
console.log(
  `\n${table([
    ["mode", "req/s (mean)", "costs (median of rounds)", "of"],
    [MODES.count.label, fmt(mean("count")), "", ""],
    [MODES.full.label, fmt(mean("full")), cost("full", "count"), "counting only"],
    [MODES.tracing.label, fmt(mean("tracing")), cost("tracing", "full"), "full statistics"],
    [MODES.script.label, fmt(mean("script")), "", ""],
    [MODES.metrics.label, fmt(mean("metrics")), cost("metrics", "script"), "scripted"],
  ])}`,
);
console.log("\ngoal: each cost <= 5 %");
