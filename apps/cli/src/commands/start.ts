import { startMaster } from "@volley/master";
import { intFlag, parseFlags } from "../args.js";
import { ensureRedis } from "../redis-launcher.js";
import { waitForSignal } from "../wait-for-signal.js";
import { localWorkerCommand } from "../worker-command.js";
import { launchDemo } from "./demo.js";

export const START_HELP = `Usage: volley start [--port N] [--host H] [--threads N] [--no-demo] [--demo-port N] [--demo-grpc-port N]

The quick start: a master on http://127.0.0.1:8089 with one local worker, SQLite at
./data/volley.db, Redis from REDIS_URL or 127.0.0.1:6379, or a private redis-server under
./data/redis when none answers, and the demo shop (volley demo) on http://127.0.0.1:18080 and
gRPC 127.0.0.1:50051 to point a first test at (--demo-port, --demo-grpc-port; --no-demo: none).
Ctrl-C stops everything.`;

export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: "string" },
    host: { type: "string" },
    threads: { type: "string" },
    "no-demo": { type: "boolean" },
    "demo-port": { type: "string" },
    "demo-grpc-port": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(START_HELP);
    return 0;
  }
  // Flags are read before anything starts: a bad one stops nothing half-way.
  const demoPorts = {
    port: intFlag("demo-port", values["demo-port"], 0, 65535) ?? 18080,
    grpcPort: intFlag("demo-grpc-port", values["demo-grpc-port"], 0, 65535) ?? 50051,
  };
  const port = intFlag("port", values.port, 0, 65535) ?? 8089;
  const threads = intFlag("threads", values.threads, 1, 256) ?? 1;
  const redis = await ensureRedis({ dataDir: "./data" });
  if (redis.private) console.log(`Started a private Redis on ${redis.url} (data in ./data/redis)`);
  try {
    const master = await startMaster({
      port,
      host: values.host,
      redisUrl: redis.url,
      localWorkers: 1,
      localWorkerThreads: threads,
      workerCommand: localWorkerCommand(),
    });
    // Ctrl-C from here on stops cleanly, the demo's start included.
    const stopped = waitForSignal();
    // The demo is a convenience: its ports being taken (a demo already up) must not stop Volley.
    const demo = values["no-demo"]
      ? null
      : await launchDemo(demoPorts).catch((error: unknown) => {
          console.log(`No demo shop: ${(error as Error).message}`);
          return null;
        });
    console.log(`Volley is running: open ${master.url}`);
    if (demo)
      console.log(
        `Demo shop to test against: ${demo.url}${demo.grpcTarget ? ` (gRPC ${demo.grpcTarget})` : ""}; --no-demo to skip`,
      );
    await stopped;
    console.log("Stopping...");
    await Promise.all([master.close(), demo?.close()]);
    return 0;
  } finally {
    await redis.stop();
  }
}
