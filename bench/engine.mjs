// pnpm bench engine [--duration 10] [--connections 50]
// One Volley engine thread against nginx, each pinned to its own core, beside autocannon, wrk and
// hey (Go, the stand-in for boomer) measured the same way in the same run. Volley's figure
// includes its statistics (an HDR histogram record per request).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { arg, cores, fmt, has, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = Number(arg(args, "duration", "10"));
const connections = Number(arg(args, "connections", "50"));
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
console.log(
  `nginx on core ${server}, clients on core ${client} (${count} cores), ${connections} connections, ${duration}s each\n`,
);

const results = [];
async function measure(name, command, args, parse) {
  const [cmd, cmdArgs] = pinned(client, command, args);
  const out = await run(cmd, cmdArgs, { cwd: ROOT });
  const rps = parse(out);
  results.push([name, rps]);
  console.log(`${name.padEnd(12)} ${fmt(rps)} req/s`);
}

// A short warm-up so nginx and the kernel are in the same state for everyone.
await run(
  ...pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    "--url",
    nginx.url,
    "--vus",
    String(connections),
    "--duration",
    "2",
  ]),
);

// The plain engine, then the same load through a real-traffic scenario (feeder, cookies, flows).
for (const [name, extra] of [
  ["volley", []],
  ["volley+mix", ["--traffic"]],
]) {
  await measure(
    name,
    process.execPath,
    [
      join(ROOT, "bench/lib/engine-client.mjs"),
      "--url",
      nginx.url,
      "--vus",
      String(connections),
      "--duration",
      String(duration),
      ...extra,
    ],
    (out) => JSON.parse(out).rps,
  );
}
await measure(
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
);
if (has("wrk")) {
  await measure("wrk (C)", "wrk", ["-t1", `-c${connections}`, `-d${duration}s`, url], (out) =>
    Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
  );
}
if (has("hey")) {
  await measure("hey (Go)", "hey", ["-c", String(connections), "-z", `${duration}s`, url], (out) =>
    Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
  );
}
await nginx.stop();

const volley = results[0][1];
console.log(
  `\n${table([["client", "req/s", "volley ÷ client"], ...results.map(([name, rps]) => [name, fmt(rps), (volley / rps).toFixed(2)])])}`,
);
console.log(
  `\nvolley+mix (unique feeder, cookie jar, two weighted flows with templates) ÷ volley: ${(results[1][1] / volley).toFixed(2)} (goal >= 0.9)`,
);
console.log(
  "\nGoal: volley ÷ autocannon >= 1.2 and volley ÷ hey >= 1.2 (a noisy machine: compare ratios, not absolutes).",
);
