// pnpm bench script [--duration 10] [--connections 50] [--rounds 2]
// The same /hello load from one pinned engine thread, declarative (`requests:`) and scripted
// (`await vu.http.get("/hello")`; and, priced beside it, requests not awaited and two at a time
// with vu.http.batch), against nginx on the other core. A promise per request, the VU's
// connection slots and the tracking of every request it starts are the price of a script; the
// goal is scripted >= 0.8x declarative.
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const connections = arg(args, "connections", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();
const nginx = await startNginx({ core: server });

const MODES = ["declarative", "await", "unawaited", "batch"];
const LABELS = {
  declarative: "declarative (requests:)",
  await: "scripted (await vu.http.get)",
  unawaited: "scripted, not awaited",
  batch: "scripted (vu.http.batch of 2)",
};

async function measure(mode) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    "--url",
    nginx.url,
    "--vus",
    connections,
    "--duration",
    duration,
    ...(mode === "declarative" ? [] : ["--script", "--script-mode", mode]),
  ]);
  const result = JSON.parse(await run(cmd, cmdArgs));
  if (result.failures > 0)
    throw new Error(`${result.failures} failures: the bench is not measuring requests`);
  return result.rps;
}

await measure("declarative"); // warm-up
const results = Object.fromEntries(MODES.map((mode) => [mode, []]));
for (let round = 0; round < rounds; round++) {
  // Rotate the order so drift on a noisy machine hits every mode alike.
  const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
  for (const mode of order) results[mode].push(await measure(mode));
  console.log(`round ${round + 1}: ${MODES.map((m) => `${m} ${fmt(results[m].at(-1))}`).join(", ")} req/s`);
}
await nginx.stop();
const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
console.log(
  `\n${table([["VUs", "req/s (mean)", "÷ declarative"], ...MODES.map((m) => [LABELS[m], fmt(mean(results[m])), (mean(results[m]) / mean(results.declarative)).toFixed(2)])])}`,
);
console.log(
  `\nscripted / declarative = ${(mean(results.await) / mean(results.declarative)).toFixed(2)} (goal >= 0.8)`,
);
