// pnpm bench connections [--vus 10000] [--threads 2] [--duration 20]
// 10,000 VUs in one worker process against nginx on loopback, each VU on its own keep-alive
// connection. Goals: peak RSS <= 300 MB, no errors, no socket left open after the run.
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
    `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${join(ROOT, "bench/lib/connections-client.mjs")}" ${nginx.url} ${vus} ${threads} ${duration}`,
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
    ["peak RSS", `${fmt(result.peakRssMb)} MB`, "<= 300 MB"],
    ["errors", fmt(result.failures), "0"],
    ["sockets still open", fmt(result.established), "0"],
    ["TIME_WAIT sockets", fmt(result.timeWait), `<= ${vus} (connections used)`],
  ]),
);
if (result.errors.length) console.log("\nerrors:", result.errors.slice(0, 5));
