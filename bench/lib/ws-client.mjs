// WebSocket round trips (send, await the echo) from one process, for `pnpm bench ws`:
// --mode volley: scripted VUs of one Volley engine thread (`vu.ws`), each iteration a socket of
// --per-socket round trips recorded under a name (a timed exchange each); --mode raw: the same
// sockets and loop on the ws library alone, the tight loop Volley is compared with. Prints JSON.
import { loadScripts, SliceEngine } from "@volley/engine";
import { Partition, parseScenario } from "@volley/protocol";
import { bundleScripts } from "@volley/script/bundle";
import WebSocket from "ws";

const args = process.argv.slice(2);
const get = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const url = get("url");
const sockets = Number(get("sockets", "50"));
const durationS = Number(get("duration", "10"));
const perSocket = Number(get("per-socket", "1000"));
const mode = get("mode", "volley");

async function raw() {
  const deadline = Date.now() + durationS * 1000;
  let trips = 0;
  const loop = async () => {
    while (Date.now() < deadline) {
      const socket = new WebSocket(url, { perMessageDeflate: false });
      await new Promise((resolve, reject) => {
        socket.once("open", resolve);
        socket.once("error", reject);
      });
      for (let i = 0; i < perSocket && Date.now() < deadline; i++) {
        const echoed = new Promise((resolve) => socket.once("message", resolve));
        socket.send("ping");
        await echoed;
        trips++;
      }
      socket.close();
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: sockets }, loop));
  return { trips, failures: 0, seconds: (Date.now() - started) / 1000 };
}

async function volley() {
  const script = `export default async function (vu) {
    const ws = await vu.ws.connect(${JSON.stringify(url)}, { name: "socket" });
    for (let i = 0; i < ${perSocket}; i++) {
      ws.send("ping");
      await ws.next({ name: "echo" });
    }
    await ws.close();
  }`;
  const bundled = await bundleScripts(["bench.js"], { "bench.js": script });
  const scripts = await loadScripts(Object.fromEntries(Object.entries(bundled).map(([p, b]) => [p, b.code])));
  let trips = 0;
  let failures = 0;
  const engine = new SliceEngine({
    scenario: parseScenario({
      name: "bench-ws",
      target: url.replace(/^ws/, "http"),
      load: { executor: "constant-vus", vus: sockets, duration: `${durationS}s`, gracefulStop: "0s" },
      script: "bench.js",
    }),
    scripts,
    partition: new Partition(),
    startAtEpochMs: Date.now() + 200,
    workerName: "bench",
    onPeriod: (period) => {
      for (const r of period.requests) {
        if (r.name !== "echo") continue;
        trips += r.requests - r.failures;
        failures += r.failures;
      }
    },
  });
  const started = Date.now() + 200;
  await engine.run();
  return { trips, failures, seconds: (Date.now() - started) / 1000 };
}

const result = mode === "raw" ? await raw() : await volley();
process.stdout.write(JSON.stringify({ ...result, perS: result.trips / result.seconds }));
