// pnpm bench script [--duration 10] [--connections 50] [--rounds 2]
// The same /hello load from one pinned engine thread, declarative (`requests:`) and scripted
// (`await vu.http.get("/hello")`), against nginx on the other core. A promise per request is the
// price of a script; the goal is scripted >= 0.7x declarative.
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const connections = arg(args, "connections", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();
const nginx = await startNginx({ core: server });

async function measure(script) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    "--url",
    nginx.url,
    "--vus",
    connections,
    "--duration",
    duration,
    ...(script ? ["--script"] : []),
  ]);
  const result = JSON.parse(await run(cmd, cmdArgs));
  if (result.failures > 0)
    throw new Error(`${result.failures} failures: the bench is not measuring requests`);
  return result.rps;
}

await measure(false); // warm-up
const declarative = [];
const scripted = [];
for (let round = 0; round < rounds; round++) {
  // Alternate the order so drift on a noisy machine hits both alike.
  const order = round % 2 === 0 ? [false, true] : [true, false];
  for (const script of order) (script ? scripted : declarative).push(await measure(script));
  console.log(
    `round ${round + 1}: declarative ${fmt(declarative.at(-1))} req/s, scripted ${fmt(scripted.at(-1))} req/s`,
  );
}
await nginx.stop();
const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
const ratio = mean(scripted) / mean(declarative);
console.log(
  `\n${table([
    ["VUs", "req/s (mean)"],
    ["declarative (requests:)", fmt(mean(declarative))],
    ["scripted (vu.http.get)", fmt(mean(scripted))],
  ])}`,
);
console.log(`\nscripted / declarative = ${ratio.toFixed(2)} (goal >= 0.7)`);
