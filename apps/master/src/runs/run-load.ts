import type { Database } from "@volley/db";
import type { LiveMessage, LoadChangeRecord, LoadPatch } from "@volley/protocol";
import type { Logger } from "pino";
import type { LiveAggregators } from "../pipeline/aggregator-directory.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import type { ActiveRun } from "./active-run.js";
import { planLoadChange } from "./load-control.js";
import { rebalanceRun } from "./rebalance.js";

export interface RunLoadDeps {
  db: Database;
  registry: WorkerRegistry;
  log: Logger;
  publish: (message: LiveMessage) => void;
  /** Aggregator partitions alive now (a joining worker is routed to one). */
  liveAggregators?: () => Promise<LiveAggregators>;
}

/**
 * Changes the running run's load (`PATCH /api/runs/:id/load`): checked against its executor,
 * sent to its workers to apply at the same moment, kept in the run and pushed to dashboards.
 */
export async function changeRunLoad(
  active: ActiveRun,
  patch: LoadPatch,
  deps: RunLoadDeps,
  now: number,
  by?: string,
): Promise<LoadChangeRecord[]> {
  const { change, record } = planLoadChange(active, patch, active.loadChanges.length, now);
  for (const worker of active.aggregator.workerList()) {
    deps.registry.send(worker.workerId, { type: "change-load", runId: active.id, change });
  }
  active.appliedChanges.push(change);
  return recordLoadChange(active, by !== undefined ? { ...record, by } : record, deps);
}

/**
 * Gives ready workers that are not in the running run a share of it (`POST
 * /api/runs/:id/rebalance`): every worker switches to the new split at one moment.
 */
export async function addWorkersToRun(
  active: ActiveRun,
  deps: RunLoadDeps,
  now: number,
  by?: string,
): Promise<LoadChangeRecord[]> {
  const record = await rebalanceRun(active, deps, now);
  return recordLoadChange(active, by !== undefined ? { ...record, by } : record, deps);
}

async function recordLoadChange(
  active: ActiveRun,
  record: LoadChangeRecord,
  deps: RunLoadDeps,
): Promise<LoadChangeRecord[]> {
  active.loadChanges.push(record);
  await deps.db.runs.update(active.id, { loadChanges: JSON.stringify(active.loadChanges) });
  deps.log.info({ runId: active.id, ...record }, "load changed");
  deps.publish({ type: "run-load", runId: active.id, loadChanges: active.loadChanges });
  return active.loadChanges;
}
