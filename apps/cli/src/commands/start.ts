import { startMaster } from "@volley/master";
import { intFlag, parseFlags } from "../args.js";
import { ensureRedis } from "../redis-launcher.js";
import { localWorkerCommand } from "../worker-command.js";
import { waitForSignal } from "./master.js";

export const START_HELP = `Usage: volley start [--port N] [--host H] [--threads N]

The quick start: a master on http://127.0.0.1:8089 with one local worker, SQLite at
./data/volley.db, Redis from REDIS_URL or 127.0.0.1:6379, or a private redis-server under
./data/redis when none answers. Ctrl-C stops everything.`;

export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: "string" },
    host: { type: "string" },
    threads: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(START_HELP);
    return 0;
  }
  const redis = await ensureRedis({ dataDir: "./data" });
  if (redis.private) console.log(`Started a private Redis on ${redis.url} (data in ./data/redis)`);
  try {
    const master = await startMaster({
      port: intFlag("port", values.port, 0, 65535) ?? 8089,
      host: values.host,
      redisUrl: redis.url,
      localWorkers: 1,
      localWorkerThreads: intFlag("threads", values.threads, 1, 256) ?? 1,
      workerCommand: localWorkerCommand(),
    });
    console.log(`Volley is running: open ${master.url}`);
    await waitForSignal();
    console.log("Stopping...");
    await master.close();
    return 0;
  } finally {
    await redis.stop();
  }
}
