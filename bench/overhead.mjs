// pnpm bench overhead [--duration 10] [--connections 50] [--rounds 2]
// The same load twice per round: with Volley's full statistics (HDR histogram per request) and
// counting only. The goal is <= 5 % apart: statistics must not slow the request path.
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const connections = arg(args, "connections", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();
const nginx = await startNginx({ core: server });

async function measure(countOnly) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    "--url",
    nginx.url,
    "--vus",
    connections,
    "--duration",
    duration,
    ...(countOnly ? ["--count-only"] : []),
  ]);
  return JSON.parse(await run(cmd, cmdArgs)).rps;
}

await measure(true);
const full = [];
const count = [];
for (let round = 0; round < rounds; round++) {
  // Alternate the order so drift on a noisy machine hits both alike.
  if (round % 2 === 0) {
    full.push(await measure(false));
    count.push(await measure(true));
  } else {
    count.push(await measure(true));
    full.push(await measure(false));
  }
  console.log(`round ${round + 1}: full ${fmt(full.at(-1))} req/s, counting only ${fmt(count.at(-1))} req/s`);
}
await nginx.stop();
const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
const gap = (mean(count) - mean(full)) / mean(count);
console.log(
  `\n${table([
    ["mode", "req/s (mean)"],
    ["full statistics", fmt(mean(full))],
    ["counting only", fmt(mean(count))],
  ])}`,
);
console.log(`\nfull statistics cost ${(gap * 100).toFixed(1)} % of throughput (goal <= 5 %)`);
