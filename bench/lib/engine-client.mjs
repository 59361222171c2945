// One Volley engine thread (in this process) driving constant VUs; prints its figures as JSON.
// Statistics are recorded as in a real run (HDR histogram per request) unless --count-only.

import { loadScripts, SliceEngine } from "@volley/engine";
import { isRequestMethod, Partition, parseScenario } from "@volley/protocol";
import { bundleScripts } from "@volley/script/bundle";

const args = process.argv.slice(2);
const get = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const url = get("url");
const vus = Number(get("vus", "50"));
const durationS = Number(get("duration", "10"));
const path = get("path", "/hello");
// --traffic: what a real-traffic scenario adds on the request path: a unique feeder (100,000 rows,
// recycled), the cookie jar (on by default) and two weighted flows with templates.
const traffic = args.includes("--traffic");
// --client undici: the same engine on undici's HTTP/1.1 client instead of Volley's own.
const client = get("client", "volley");
// --http JSON: more http settings (version 2, insecureTls, maxConnections).
const http = { client, ...JSON.parse(get("http", "{}")) };
// --script: the same requests from a scripted VU (`await vu.http.get(path)`), bundled as a run's
// would be; --script-mode unawaited: `vu.http.get(path)` without await (each request counted under
// the place the bundle stamped on its call, for the not-awaited warning); discard: awaited with
// discardBody; batch: two at a time with `vu.http.batch`; metrics: the
// awaited request and 4 custom metrics.
const scripted = args.includes("--script");
const quoted = JSON.stringify(path);
const SCRIPT_BODIES = {
  await: `await vu.http.get(${quoted});`,
  unawaited: `vu.http.get(${quoted});`,
  // The answer's body counted and not kept (no copy of it): what keeping a body costs.
  discard: `await vu.http.get(${quoted}, { discardBody: true });`,
  batch: `await vu.http.batch([{ url: ${quoted} }, { url: ${quoted} }]);`,
  // Four custom metrics per iteration, one of each type (as a k6 script's Trend, Counter...).
  metrics: `await vu.http.get(${quoted}); vu.metrics.trend("t").add(1.5); vu.metrics.counter("c").add(); vu.metrics.rate("r").add(true); vu.metrics.gauge("g").set(3);`,
};
const scriptMode = get("script-mode", "await");
const bundled = scripted
  ? await bundleScripts(["bench.js"], {
      "bench.js": `export default async function (vu) { ${SCRIPT_BODIES[scriptMode]} }`,
    })
  : {};
const scripts = await loadScripts(
  Object.fromEntries(Object.entries(bundled).map(([path, b]) => [path, b.code])),
);
const rows = Array.from({ length: 100_000 }, (_, i) => [`user${i}`, `s${i % 97}`]);
let requests = 0;
let failures = 0;
let bytesIn = 0;
/** Requests per statistics period (a second), for --series. */
const series = [];
const engine = new SliceEngine({
  scenario: parseScenario({
    name: "bench",
    target: url,
    load: { executor: "constant-vus", vus, duration: `${durationS}s` },
    http,
    ...(traffic
      ? {
          data: { users: { file: "users.csv", mode: "unique", onExhausted: "recycle" } },
          flows: [
            { name: "a", weight: 3, requests: [{ path: `${path}?u={{data.users.id}}` }] },
            {
              name: "b",
              weight: 1,
              requests: [{ path: `${path}?s={{data.users.segment}}&r={{randomString 6}}` }],
            },
          ],
        }
      : scripted
        ? { script: "bench.js" }
        : { requests: [{ path }] }),
  }),
  scripts,
  data: traffic ? { users: { columns: ["id", "segment"], rows } } : {},
  partition: new Partition(),
  startAtEpochMs: Date.now() + 200,
  workerName: "bench",
  latencyHistograms: !args.includes("--count-only"),
  onPeriod: (period) => {
    let inPeriod = 0;
    for (const r of period.requests) {
      // Iterations travel beside requests: count requests only.
      if (!isRequestMethod(r.method)) continue;
      inPeriod += r.requests;
      failures += r.failures;
      bytesIn += r.bytesIn;
    }
    requests += inPeriod;
    series.push(inPeriod);
  },
});
const started = Date.now() + 200;
const cpuBefore = process.cpuUsage();
await engine.run();
const elapsedS = (Date.now() - started) / 1000;
// CPU per request (the process's, while the engine ran): user time is steadier than req/s on a
// machine whose speed swings between minutes (kernel time swings with it), for comparing builds.
const { user, system } = process.cpuUsage(cpuBefore);
process.stdout.write(
  JSON.stringify({
    requests,
    failures,
    rps: requests / elapsedS,
    mbPerS: bytesIn / elapsedS / 1e6,
    userUsPerRequest: user / requests,
    systemUsPerRequest: system / requests,
    ...(args.includes("--series") ? { series } : {}),
  }),
);
