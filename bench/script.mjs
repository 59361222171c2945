// pnpm bench script [--duration 10] [--connections 50] [--rounds 2]
// The same /hello load from one pinned engine thread, declarative (`requests:`) and scripted
// (`await vu.http.get("/hello")`; and, priced beside it, the same with `discardBody`, requests not
// awaited and two at a time with vu.http.batch), against nginx on the other core. A promise per request, the VU's
// connection slots and the tracking of every request it starts are the price of a script; the
// goal is scripted >= 0.9x declarative (#36), the median of the rounds' ratios (a round measures
// every mode back to back, so a noisy minute hits both sides of its ratios alike).
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const connections = arg(args, "connections", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();
const nginx = await startNginx({ core: server });

const MODES = ["declarative", "await", "discard", "unawaited", "batch"];
const LABELS = {
  declarative: "declarative (requests:)",
  await: "scripted (await vu.http.get)",
  discard: "scripted, body not kept (discardBody)",
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
  return result;
}

const results = Object.fromEntries(MODES.map((mode) => [mode, []]));
// The engine thread's user time per request: what a script adds in JavaScript, apart from the
// kernel's share of a request, which swings with the machine's minute for every mode alike.
const userUs = Object.fromEntries(MODES.map((mode) => [mode, []]));
await measure("declarative"); // warm-up
for (let round = 0; round < rounds; round++) {
  // Rotate the order so drift on a noisy machine hits every mode alike.
  const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
  for (const mode of order) {
    const { rps, userUsPerRequest } = await measure(mode);
    results[mode].push(rps);
    userUs[mode].push(userUsPerRequest);
  }
  console.log(`round ${round + 1}: ${MODES.map((m) => `${m} ${fmt(results[m].at(-1))}`).join(", ")} req/s`);
}
await nginx.stop();
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ratios = (mode) => results[mode].map((rps, round) => rps / results.declarative[round]);
console.log(
  `\n${table([
    ["VUs", "req/s (median)", "user µs/request", "÷ declarative (median)", "rounds"],
    ...MODES.map((m) => [
      LABELS[m],
      fmt(median(results[m])),
      median(userUs[m]).toFixed(2),
      median(ratios(m)).toFixed(2),
      ratios(m)
        .map((r) => r.toFixed(2))
        .join(", "),
    ]),
  ])}`,
);
console.log(`\nscripted / declarative = ${median(ratios("await")).toFixed(2)} (goal >= 0.9)`);
