import { type MasterOptions, type RunningMaster, startMaster } from "@volley/master";
import { startWorker, type WorkerNode } from "@volley/worker";
import { isolatedSetup, waitFor } from "./processes.js";
import { startTargetServer, type TargetServer } from "./target-server.js";

/** A master in this process (real Redis, a fresh SQLite file, its own queue prefix). */
export async function startTestMaster(options: MasterOptions = {}): Promise<RunningMaster> {
  const setup = isolatedSetup();
  return startMaster({
    port: 0,
    databaseUrl: setup.databaseUrl,
    queuePrefix: setup.queuePrefix,
    webRoot: null,
    logLevel: "error",
    startDelayMs: 300,
    ...options,
  });
}

/** A worker node in this process, resolved once the master lists it as ready. */
export async function startTestWorker(
  master: RunningMaster,
  options: {
    name?: string;
    threads?: number;
    token?: string;
    threadStallMs?: number;
    labels?: Record<string, string>;
  } = {},
): Promise<WorkerNode> {
  const name = options.name ?? `iw-${Math.random().toString(36).slice(2, 8)}`;
  const node = startWorker({
    masterUrl: master.url,
    name,
    threads: options.threads ?? 1,
    token: options.token,
    threadStallMs: options.threadStallMs,
    labels: options.labels,
    logLevel: "error",
  });
  await waitFor(() => master.services.registry.list().some((w) => w.name === name && w.state === "ready"), {
    what: `worker ${name} to be ready`,
    timeoutMs: 10_000,
  });
  return node;
}

export interface TestFleet {
  target: TargetServer;
  master: RunningMaster;
  workers: WorkerNode[];
  close(): Promise<void>;
}

/** A counting loopback target, a master and `workers` in-process workers of `threads` threads each. */
export async function startTestFleet(
  options: { workers?: number; threads?: number; master?: MasterOptions; threadStallMs?: number } = {},
): Promise<TestFleet> {
  const target = await startTargetServer();
  const master = await startTestMaster(options.master);
  const workers: WorkerNode[] = [];
  for (let i = 0; i < (options.workers ?? 1); i++) {
    workers.push(
      await startTestWorker(master, {
        threads: options.threads ?? 1,
        threadStallMs: options.threadStallMs,
        token: options.master?.token,
      }),
    );
  }
  return {
    target,
    master,
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.shutdown(3000)));
      await master.close();
      await target.close();
    },
  };
}
