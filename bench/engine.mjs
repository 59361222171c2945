// pnpm bench engine [--duration 10] [--connections 50] [--rounds 1] [--sizes] [--e2e]
// One Volley engine thread against nginx, each pinned to its own core, beside autocannon, wrk and
// hey (Go, the stand-in for boomer) measured the same way in the same run. Volley's figure
// includes its statistics (an HDR histogram record per request). Volley runs on its own HTTP/1.1
// client, then on undici's (http.client: undici) for comparison. --sizes adds the response-size
// sweep (0 B, 1 KiB, 32 KiB, 332 KiB): Volley and autocannon, req/s and MB/s. The node:net floor
// (lib/node-floor.mjs) is the least a Node.js client does per request; the native I/O floor
// (lib/native-floor.mjs) the same with its reads and writes made in C a batch at a time. --e2e adds
// `volley run --threads 1` pinned the same way, master included. --rounds N runs every client N
// times, interleaved, each round starting one client further along (this machine is shared: one
// round can swing 30 %), and reports each round's ratios and their median. Each client's CPU
// time per request, user and system, is read with GNU time (/usr/bin/time) when it is there.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNativeFloor } from "./lib/native-floor.mjs";
import { arg, cores, fmt, has, pinned, ROOT, run, SIZES, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = Number(arg(args, "duration", "10"));
const connections = Number(arg(args, "connections", "50"));
const rounds = Number(arg(args, "rounds", "1"));
const { client, server, count } = cores();
if (!has("hey")) {
  try {
    execFileSync("sh", [
      "-c",
      "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hey wrk >/dev/null 2>&1",
    ]);
  } catch {}
}
const nginx = await startNginx({ core: server });
const url = `${nginx.url}/hello`;
const nativeFloor = buildNativeFloor();
console.log(
  `nginx on core ${server}, clients on core ${client} (${count} cores), ${connections} connections, ${duration}s each\n`,
);

/** Each client's req/s per round, in the order first measured. */
const results = new Map();
/** Each client's CPU per request per round, µs: [user, system] (GNU time's count of the process). */
const cpuPerRequest = new Map();
const timeCommand = has("/usr/bin/time") ? "/usr/bin/time" : null;
let round = 0;
async function measure(name, command, args, parse) {
  const [cmd, cmdArgs] = pinned(client, command, args);
  const cpuDir = mkdtempSync(join(tmpdir(), "volley-cpu-"));
  const cpuFile = join(cpuDir, "cpu");
  const out = timeCommand
    ? await run(timeCommand, ["-f", "%U %S", "-o", cpuFile, cmd, ...cmdArgs], { cwd: ROOT })
    : await run(cmd, cmdArgs, { cwd: ROOT });
  const rps = parse(out);
  if (!results.has(name)) results.set(name, []);
  results.get(name)[round] = rps;
  let cpu = "";
  if (timeCommand && rps > 0) {
    // Seconds of the whole process (its start included: a few tens of ms against seconds of load).
    const [user, system] = readFileSync(cpuFile, "utf8").trim().split(/\s+/).slice(-2).map(Number);
    const requests = rps * duration;
    if (!cpuPerRequest.has(name)) cpuPerRequest.set(name, []);
    cpuPerRequest.get(name)[round] = [(user * 1e6) / requests, (system * 1e6) / requests];
    cpu = `, CPU µs/request: user ${((user * 1e6) / requests).toFixed(2)}, system ${((system * 1e6) / requests).toFixed(2)}`;
  }
  rmSync(cpuDir, { recursive: true, force: true });
  console.log(`${name.padEnd(12)} ${fmt(rps)} req/s${cpu}`);
}
const median = (values) => {
  const sorted = values.filter((v) => v !== undefined).sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The arguments of one engine-client run against nginx: `seconds` long, with `extra` options. */
const engineClient = (seconds, ...extra) => [
  join(ROOT, "bench/lib/engine-client.mjs"),
  ...["--url", nginx.url, "--vus", String(connections), "--duration", String(seconds)],
  ...extra,
];

// A short warm-up so nginx and the kernel are in the same state for everyone.
await run(...pinned(client, process.execPath, engineClient(2)));

/**
 * One round's measures. Each round starts one further along the list (the first round in its
 * order, which the tables keep): no client is always the one measured right after `volley run`
 * or first after a pause, on a machine whose speed drifts within minutes.
 */
const steps = [];
// The plain engine, then the same load through a real-traffic scenario (feeder, cookies, flows).
for (const [name, extra] of [
  ["volley", []],
  ["volley+mix", ["--traffic"]],
  ["volley/undici", ["--client", "undici"]],
]) {
  steps.push(() =>
    measure(name, process.execPath, engineClient(duration, ...extra), (out) => JSON.parse(out).rps),
  );
}
steps.push(() =>
  measure(
    "autocannon",
    process.execPath,
    [
      join(ROOT, "bench/node_modules/autocannon/autocannon.js"),
      "-c",
      String(connections),
      "-d",
      String(duration),
      "-j",
      url,
    ],
    (out) => JSON.parse(out).requests.average,
  ),
);
// The least any Node.js client can do per request (lib/node-floor.mjs): Volley's distance to it
// is Volley's own JavaScript, the floor's distance to wrk is Node's.
steps.push(() =>
  measure(
    "node:net floor",
    process.execPath,
    [
      join(ROOT, "bench/lib/node-floor.mjs"),
      ...["--url", nginx.url, "--connections", String(connections), "--duration", String(duration), "--poll"],
    ],
    (out) => JSON.parse(out).rps,
  ),
);
// The same floor with its reads and writes made in C a batch at a time (lib/native-floor.mjs,
// an addon built here with node-gyp): what one crossing into C per batch would leave of
// Node's part. Skipped where the addon cannot be built.
if (nativeFloor !== null) {
  steps.push(() =>
    measure(
      "native I/O floor",
      process.execPath,
      [
        join(ROOT, "bench/lib/native-floor.mjs"),
        ...["--url", nginx.url, "--connections", String(connections), "--duration", String(duration)],
      ],
      (out) => JSON.parse(out).rps,
    ),
  );
}
if (has("wrk")) {
  steps.push(() =>
    measure("wrk (C)", "wrk", ["-t1", `-c${connections}`, `-d${duration}s`, url], (out) =>
      Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    ),
  );
}
if (has("hey")) {
  steps.push(() =>
    measure("hey (Go)", "hey", ["-c", String(connections), "-z", `${duration}s`, url], (out) =>
      Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    ),
  );
}
// End to end: `volley run --threads 1` pinned to the client core, master included (its HTTP
// server, the queue and SQLite run in the same process as the worker's main thread).
if (args.includes("--e2e")) {
  steps.push(async () => {
    const dir = mkdtempSync(join(tmpdir(), "volley-e2e-"));
    const scenario = join(dir, "e2e.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        name: "e2e",
        target: nginx.url,
        load: { executor: "constant-vus", vus: connections, duration: `${duration}s` },
        requests: [{ path: "/hello" }],
      }),
    );
    const report = join(dir, "report.json");
    const [cmd, cmdArgs] = pinned(client, process.execPath, [
      join(ROOT, "apps/cli/dist/bin.js"),
      ...["run", scenario, "--threads", "1", "--out", report],
    ]);
    await run(cmd, cmdArgs, {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `file:${join(dir, "volley.db")}`, VOLLEY_LOG_LEVEL: "warn" },
    });
    const endToEnd = JSON.parse(readFileSync(report, "utf8")).summary.total.rps;
    if (!results.has("volley run")) results.set("volley run", []);
    results.get("volley run")[round] = endToEnd;
    console.log(`volley run (e2e, master included) ${fmt(endToEnd)} req/s`);
  });
}

for (round = 0; round < rounds; round++) {
  if (rounds > 1) console.log(`round ${round + 1} of ${rounds}`);
  const start = round % steps.length;
  for (const step of [...steps.slice(start), ...steps.slice(0, start)]) await step();
}

const sweep = [];
if (args.includes("--sizes")) {
  for (const size of Object.keys(SIZES)) {
    const path = `/size/${size}`;
    const [cmd, cmdArgs] = pinned(client, process.execPath, engineClient(duration, "--path", path));
    const v = JSON.parse(await run(cmd, cmdArgs, { cwd: ROOT }));
    if (v.failures > 0)
      throw new Error(`${path}: ${v.failures} of ${v.requests} requests failed (is nginx serving it?)`);
    const [acmd, aargs] = pinned(client, process.execPath, [
      join(ROOT, "bench/node_modules/autocannon/autocannon.js"),
      ...["-c", String(connections), "-d", String(duration), "-j", `${nginx.url}${path}`],
    ]);
    const a = JSON.parse(await run(acmd, aargs, { cwd: ROOT }));
    sweep.push([size, v.rps, v.mbPerS, a.requests.average, a.throughput.average / 1e6]);
    console.log(
      `size ${size.padEnd(5)} volley ${fmt(v.rps)} req/s, autocannon ${fmt(a.requests.average)} req/s`,
    );
  }
}
await nginx.stop();

// Ratios per round (each client against the volley of the same round), then their median.
const ratio = (name, over = "volley") => {
  const a = results.get(over) ?? [];
  const b = results.get(name) ?? [];
  return median(a.map((x, i) => (b[i] ? x / b[i] : undefined)));
};
const perRound = (name, over = "volley") =>
  rounds > 1
    ? ` (rounds: ${(results.get(over) ?? [])
        .map((x, i) => (results.get(name)?.[i] ? (x / results.get(name)[i]).toFixed(2) : "-"))
        .join(", ")})`
    : "";
// Where each client's core goes per request: its own code (user) and the kernel's socket work
// (system, the same for every client on loopback); the user column is what separates them.
const cpuColumn = (name, part) => {
  const values = (cpuPerRequest.get(name) ?? []).map((pair) => pair?.[part]);
  return values.some((v) => v !== undefined) ? median(values).toFixed(2) : "-";
};
console.log(
  `\n${table([
    [
      "client",
      rounds > 1 ? "median req/s" : "req/s",
      "volley ÷ client",
      "user µs/request",
      "system µs/request",
    ],
    ...[...results.keys()].map((name) => [
      name,
      fmt(median(results.get(name))),
      ratio(name).toFixed(2),
      cpuColumn(name, 0),
      cpuColumn(name, 1),
    ]),
  ])}`,
);
console.log(
  `\nvolley+mix (unique feeder, cookie jar, two weighted flows with templates) ÷ volley: ${(1 / ratio("volley+mix")).toFixed(2)} (goal >= 0.9)`,
);
console.log(`volley (own client) ÷ volley/undici: ${ratio("volley/undici").toFixed(2)}`);
console.log(`volley ÷ autocannon: ${ratio("autocannon").toFixed(2)}${perRound("autocannon")}`);
if (results.has("hey (Go)"))
  console.log(`volley ÷ hey: ${ratio("hey (Go)").toFixed(2)}${perRound("hey (Go)")}`);
// wrk (C) is the reference for what one core can do (#36: engine >= 0.9x, end to end >= 0.85x).
if (results.has("wrk (C)")) {
  console.log(`volley ÷ wrk: ${ratio("wrk (C)").toFixed(2)}${perRound("wrk (C)")} (goal >= 0.9)`);
  console.log(
    `volley ÷ node:net floor: ${ratio("node:net floor").toFixed(2)}${perRound("node:net floor")}; floor ÷ wrk: ${ratio("wrk (C)", "node:net floor").toFixed(2)}${perRound("wrk (C)", "node:net floor")}`,
  );
  if (results.has("native I/O floor"))
    console.log(
      `native I/O floor ÷ node:net floor: ${ratio("node:net floor", "native I/O floor").toFixed(2)}${perRound("node:net floor", "native I/O floor")}; native I/O floor ÷ wrk: ${ratio("wrk (C)", "native I/O floor").toFixed(2)}${perRound("wrk (C)", "native I/O floor")}`,
    );
}
if (results.has("volley run")) {
  console.log(
    `volley run --threads 1 (end to end) ÷ autocannon: ${ratio("autocannon", "volley run").toFixed(2)}${perRound("autocannon", "volley run")}`,
  );
  if (results.has("wrk (C)"))
    console.log(
      `volley run --threads 1 (end to end) ÷ wrk: ${ratio("wrk (C)", "volley run").toFixed(2)}${perRound("wrk (C)", "volley run")} (goal >= 0.85)`,
    );
}
if (sweep.length) {
  console.log(
    `\n${table([
      ["body", "volley req/s", "volley MB/s", "autocannon req/s", "autocannon MB/s", "volley ÷ autocannon"],
      ...sweep.map(([size, v, vmb, a, amb]) => [
        size,
        fmt(v),
        vmb.toFixed(1),
        fmt(a),
        amb.toFixed(1),
        (v / a).toFixed(2),
      ]),
    ])}`,
  );
}
console.log(
  "\nGoals: volley ÷ autocannon >= 1.3, ÷ hey >= 1.5, ÷ wrk >= 0.9, end to end ÷ wrk >= 0.85 (a noisy machine: compare ratios, not absolutes).",
);
