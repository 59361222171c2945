// pnpm bench ws [--duration 10] [--sockets 50] [--rounds 2]
// WebSocket round trips per second from one pinned process against a ws echo server on the other
// core: Volley's scripted VUs (`vu.ws`: every round trip a timed, recorded exchange) beside a
// tight loop of the ws library doing the same sockets and sends. Goal: Volley >= 0.8x raw ws.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { arg, cores, interleavedRounds, pinned, ROOT, run } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "10");
const sockets = arg(args, "sockets", "50");
const rounds = Number(arg(args, "rounds", "2"));
const { client, server } = cores();

const [serverCmd, serverArgs] = pinned(server, process.execPath, [
  join(ROOT, "bench/lib/ws-echo-server.mjs"),
]);
const echo = spawn(serverCmd, serverArgs, { stdio: ["pipe", "pipe", "inherit"] });
const port = await new Promise((resolve) =>
  echo.stdout.once("data", (d) => resolve(Number(String(d).trim()))),
);
const url = `ws://127.0.0.1:${port}/`;

async function measure(mode) {
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/ws-client.mjs"),
    ...["--mode", mode, "--url", url, "--sockets", sockets, "--duration", duration],
  ]);
  const result = JSON.parse(await run(cmd, cmdArgs));
  if (result.failures > 0)
    throw new Error(`${result.failures} failures: the bench is not measuring round trips`);
  return result.perS;
}

const LABELS = { raw: "ws library, tight loop", volley: "Volley scripted VUs (vu.ws)" };
await interleavedRounds({
  modes: ["raw", "volley"],
  labels: LABELS,
  measure,
  rounds,
  unit: "round trips/s",
  goal: 0.8,
});
echo.stdin.end();
