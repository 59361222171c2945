// pnpm bench grpc [--duration 10] [--vus 50] [--rounds 2]
// Unary gRPC calls per second from one pinned process against a grpc-js server on the other
// core: a scenario's `grpc:` request on Volley's engine (every call recorded) beside a tight loop
// of grpc-js making the same calls over as many connections. Goal: Volley >= 0.8x raw grpc-js.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const vus = arg(args, "vus", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();

const [serverCmd, serverArgs] = pinned(server, process.execPath, [join(ROOT, "bench/lib/grpc-server.mjs")]);
const grpcServer = spawn(serverCmd, serverArgs, { stdio: ["pipe", "pipe", "inherit"] });
const port = await new Promise((resolve) =>
  grpcServer.stdout.once("data", (d) => resolve(Number(String(d).trim()))),
);
const target = `grpc://127.0.0.1:${port}`;

async function measure(mode) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/grpc-client.mjs"),
    ...["--mode", mode, "--target", target, "--vus", vus, "--duration", duration],
  ]);
  const result = JSON.parse(await run(cmd, cmdArgs));
  if (result.failures > 0) throw new Error(`${result.failures} failures: the bench is not measuring calls`);
  return result.perS;
}

const MODES = ["raw", "volley"];
const LABELS = { raw: "grpc-js, tight loop", volley: "Volley (grpc: request)" };
await measure("volley"); // warm-up
const results = { raw: [], volley: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? MODES : [...MODES].reverse();
  for (const mode of order) results[mode].push(await measure(mode));
  console.log(
    `round ${round + 1}: raw ${fmt(results.raw.at(-1))}, volley ${fmt(results.volley.at(-1))} calls/s`,
  );
}
grpcServer.stdin.end();
const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
console.log(
  `\n${table([["client", "calls/s (mean)", "÷ raw"], ...MODES.map((m) => [LABELS[m], fmt(mean(results[m])), (mean(results[m]) / mean(results.raw)).toFixed(2)])])}`,
);
console.log(
  `\nVolley / raw grpc-js = ${(mean(results.volley) / mean(results.raw)).toFixed(2)} (goal >= 0.8)`,
);
