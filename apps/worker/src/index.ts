import { humanLogStream } from "@volley/protocol";
import { pino } from "pino";
import { resolveWorkerOptions, type WorkerOptions } from "./options.js";
import { WorkerNode } from "./worker-node.js";

export { ClockSync } from "./connection/clock-sync.js";
export { resolveWorkerOptions, type WorkerOptions } from "./options.js";
export { StatsPublisher } from "./stats/stats-publisher.js";
export { WorkerNode } from "./worker-node.js";

/**
 * Starts a worker node; it connects and reconnects by itself until shut down or retired. Its log
 * goes to stdout, or to `logStream` (tests read what it says).
 */
export function startWorker(options: WorkerOptions, logStream?: { write(line: string): void }): WorkerNode {
  const resolved = resolveWorkerOptions(options);
  const log = pino(
    { level: resolved.logLevel, base: { service: "volley-worker", worker: resolved.name } },
    logStream ??
      (resolved.logFormat === "human"
        ? humanLogStream(process.stdout)
        : pino.destination({ dest: 1, sync: false })),
  );
  const node = new WorkerNode(resolved, log);
  node.start();
  return node;
}
export { appendToPartition } from "./stats/partition-append.js";
