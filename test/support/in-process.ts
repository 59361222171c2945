import { type MasterOptions, type RunningMaster, startMaster } from "@volley/master";
import { startWorker, type WorkerNode } from "@volley/worker";
import { isolatedSetup, waitFor } from "./processes.js";

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
  options: { name?: string; threads?: number; token?: string } = {},
): Promise<WorkerNode> {
  const name = options.name ?? `iw-${Math.random().toString(36).slice(2, 8)}`;
  const node = startWorker({
    masterUrl: master.url,
    name,
    threads: options.threads ?? 1,
    token: options.token,
    logLevel: "error",
  });
  await waitFor(() => master.services.registry.list().some((w) => w.name === name && w.state === "ready"), {
    what: `worker ${name} to be ready`,
    timeoutMs: 10_000,
  });
  return node;
}
