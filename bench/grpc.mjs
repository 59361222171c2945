// pnpm bench grpc [--duration 10] [--vus 50] [--rounds 2]
// Unary gRPC calls per second from one pinned process against a grpc-js server on the other
// core: a scenario's `grpc:` request on Volley's engine (every call recorded) beside a tight loop
// of grpc-js making the same calls over as many connections. Goal: Volley >= 0.8x raw grpc-js.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { arg, cores, interleavedRounds, pinned, ROOT, run } from "./lib/tools.mjs";

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

const LABELS = { raw: "grpc-js, tight loop", volley: "Volley (grpc: request)" };
await interleavedRounds({
  modes: ["raw", "volley"],
  labels: LABELS,
  measure,
  rounds,
  unit: "calls/s",
  goal: 0.8,
});
grpcServer.stdin.end();
