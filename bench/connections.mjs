// pnpm bench connections [--vus 10000] [--threads 2] [--duration 20] [--engine-only]
//                        [--workers N --local-addresses 127.0.0.2-127.0.0.5 --think 5s] [--hold 5000]
// 10,000 VUs in a real `volley worker` process (connected to a real master, publishing its
// stats) against nginx on loopback, each VU on its own keep-alive connection. Goals: the worker's
// peak RSS <= 250 MB, no errors, no socket left open after the run. --engine-only drives the
// engine threads alone in one process (what the first figures measured). With --workers, that
// many worker processes share the VUs, spread over --local-addresses (http.localAddresses), and
// nginx runs 4 reuseport workers: 38,000 VUs to one ip:port, past one source address's ports
// and one process's 20,000 files. --hold MS runs against a target of 4 node processes that
// answers after MS instead of nginx: every VU then holds a connection of its own at once (with
// nginx and a think time the VUs share the idle connections of their thread), and the table gives
// each worker's RSS per connection above its base before the run.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { arg, cores, fmt, ROOT, run, startNginx, table } from "./lib/tools.mjs";

/** The tests' counting target of 4 node processes (test/support/cluster-target-main.mjs). */
async function startHoldingTarget() {
  const child = spawn(process.execPath, [join(ROOT, "test/support/cluster-target-main.mjs"), "4"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const url = /target (\S+)/.exec(line)[1];
  return { url, stop: async () => child.kill("SIGTERM") };
}

const args = process.argv.slice(2);
const vus = arg(args, "vus", "10000");
const threads = arg(args, "threads", String(cores().count));
const duration = arg(args, "duration", "20");
const workers = arg(args, "workers", "1");
const localAddresses = arg(args, "local-addresses", "");
const think = arg(args, "think", "1s");
const hold = arg(args, "hold", "0");
const nginx =
  hold === "0"
    ? await startNginx({
        core: cores().server,
        connections: Number(vus) + 100,
        workers: Number(workers) > 1 ? 4 : 1,
      })
    : await startHoldingTarget();
console.log(
  `${vus} VUs, ${workers} worker process(es) of ${threads} engine threads, ${duration}s, ${hold === "0" ? `one request per VU per ${think}` : `each request answered after ${hold} ms`}${localAddresses ? `, from ${localAddresses}` : ""}\n`,
);
// One process may not open 10,000 sockets under a default limit of 1024 files: raise the soft
// limit to the hard one.
let out;
try {
  out = await run("bash", [
    "-c",
    args.includes("--engine-only")
      ? `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${join(ROOT, "bench/lib/connections-client.mjs")}" ${nginx.url} ${vus} ${threads} ${duration}`
      : `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${join(ROOT, "bench/lib/connections-fleet.mjs")}" ${nginx.url} ${vus} ${threads} ${duration} ${ROOT} ${workers} "${localAddresses}" ${think} ${hold}`,
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
    [
      result.peaksMb?.length > 1 ? "peak RSS (each worker)" : "peak RSS",
      (result.peaksMb ?? [result.peakRssMb]).map((mb) => `${fmt(mb)} MB`).join(", "),
      // The goals: 250 MB at 10,000 VUs; 400 MB at 19,000 (what one process may hold under a
      // 20,000-file limit).
      Number(vus) / Number(workers) > 10_000 ? "<= 400 MB" : "<= 250 MB",
    ],
    ...(hold === "0"
      ? []
      : [
          [
            "RSS per connection above base",
            result.peaksMb
              .map(
                (peak, i) =>
                  `${fmt(((peak - result.basesMb[i]) * 1024) / (Number(vus) / result.peaksMb.length))} KB`,
              )
              .join(", "),
            "<= 12 KB",
          ],
        ]),
    ["errors", fmt(result.failures), "0"],
    [
      "sockets still open (10 s after)",
      `${fmt(result.established)} (all closed in ${fmt(result.closedInMs)} ms)`,
      "0",
    ],
    ["TIME_WAIT sockets", fmt(result.timeWait), `<= ${vus} (connections used)`],
  ]),
);
if (result.errors.length) console.log("\nerrors:", result.errors.slice(0, 5));
if (result.status !== "finished") console.log(`\nthe run ended ${result.status}: ${result.message ?? ""}`);
