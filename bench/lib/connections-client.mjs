// Many VUs in one worker process (its engine threads): peak RSS, errors, and the sockets left
// open after the run. Run with a raised file limit (see connections.mjs).
import { execFileSync } from "node:child_process";
import { EngineRunner } from "@volley/engine";
import { StatsAggregate } from "@volley/stats";

const [url, vusText, threadsText, durationText] = process.argv.slice(2);
const port = new URL(url).port;
const aggregate = new StatsAggregate();
let peakRss = 0;
let peakVus = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
const runner = new EngineRunner({
  scenario: {
    name: "connections",
    target: url,
    load: { executor: "constant-vus", vus: Number(vusText), duration: `${durationText}s`, rampUp: "5s" },
    requests: [{ path: "/hello" }],
    thinkTime: "1s",
    http: { keepAliveTimeout: "30s" },
  },
  partition: [],
  threads: Number(threadsText),
  startAtEpochMs: Date.now() + 500,
  workerName: "connections",
  onPeriod: (p) => {
    aggregate.add(p.requests, p.dropped);
    peakVus = Math.max(peakVus, p.vus);
  },
});
await runner.ready();
await runner.done();
clearInterval(sampler);
const count = (state) =>
  execFileSync("ss", ["-Htan", "state", state, `( dport = :${port} )`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean).length;
const total = aggregate.total();
process.stdout.write(
  JSON.stringify({
    requests: total.requests,
    failures: total.failures,
    errors: total.errors.list(),
    peakRssMb: peakRss / 1024 / 1024,
    peakVus,
    established: count("established"),
    timeWait: count("time-wait"),
  }),
);
