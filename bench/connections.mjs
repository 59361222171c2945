// pnpm bench connections [--vus 10000] [--threads 2] [--duration 20] [--engine-only]
// 10,000 VUs in a real `volley worker` process (connected to a real master, publishing its
// stats) against nginx on loopback, each VU on its own keep-alive connection. Goals: the worker's
// peak RSS <= 250 MB, no errors, no socket left open after the run. --engine-only drives the
// engine threads alone in one process (what the first figures measured).
import { join } from "node:path";
import { arg, cores, fmt, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const vus = arg(args, "vus", "10000");
const threads = arg(args, "threads", String(cores().count));
const duration = arg(args, "duration", "20");
const nginx = await startNginx({ core: cores().server, connections: Number(vus) + 100 });
console.log(`${vus} VUs, ${threads} engine threads, ${duration}s, one request per VU per second\n`);
// One process may not open 10,000 sockets under a default limit of 1024 files: raise the soft
// limit to the hard one.
let out;
try {
  out = await run("bash", [
    "-c",
    args.includes("--engine-only")
      ? `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${join(ROOT, "bench/lib/connections-client.mjs")}" ${nginx.url} ${vus} ${threads} ${duration}`
      : `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${join(ROOT, "bench/lib/connections-fleet.mjs")}" ${nginx.url} ${vus} ${threads} ${duration} ${ROOT}`,
  ]);
} finally {
  await nginx.stop();
}
const result = JSON.parse(out);
console.log(
  table([
    ["measure", "value", "goal"],
    ["requests", fmt(result.requests), ""],
    ["peak VUs", fmt(result.peakVus), vus],
    ["peak RSS", `${fmt(result.peakRssMb)} MB`, "<= 250 MB"],
    ["errors", fmt(result.failures), "0"],
    ["sockets still open", fmt(result.established), "0"],
    ["TIME_WAIT sockets", fmt(result.timeWait), `<= ${vus} (connections used)`],
  ]),
);
if (result.errors.length) console.log("\nerrors:", result.errors.slice(0, 5));
