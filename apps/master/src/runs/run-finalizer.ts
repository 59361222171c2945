import type { Database } from "@volley/db";
import { isTerminalRunStatus } from "@volley/protocol";
import { evaluateThresholds } from "@volley/stats";
import type { Logger } from "pino";
import type { StatsPipeline } from "../pipeline/stats-pipeline.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import type { ActiveRun } from "./active-run.js";
import type { RunLease } from "./run-lease.js";
import { type RunLifecycle, runOutcome } from "./run-lifecycle.js";
import { runWarnings } from "./worker-warnings.js";

export interface FinalizeDeps {
  db: Database;
  pipeline: StatsPipeline;
  registry: WorkerRegistry;
  lease: RunLease;
  log: Logger;
  /** Writes the run's end (see run-lifecycle.ts). */
  lifecycle: RunLifecycle;
}

/**
 * Ends a run once every batch is merged: thresholds on the merged histograms, the final status
 * (finished, aborted when stopped, failed when no worker could run it), the workers' figures.
 * Returns false for an unknown run.
 */
export async function finalizeRun(deps: FinalizeDeps, runId: string, active: ActiveRun): Promise<boolean> {
  const { db, pipeline, registry, log } = deps;
  const aggregator = await pipeline.get(runId);
  if (!aggregator) return false;
  await pipeline.flush(runId);
  const run = await db.runs.get(runId);
  if (!run) return false;
  const scenario = active.scenario;
  const summary = aggregator.summary();
  const thresholds = evaluateThresholds(scenario.thresholds, summary);
  const passed = thresholds.length ? thresholds.every((t) => t.pass) : null;
  const workers = aggregator.workerList();
  // A run already ended (failed elsewhere before this master took it over) keeps its status.
  const outcome = isTerminalRunStatus(run.status)
    ? null
    : runOutcome({
        stopReason: run.stopReason,
        workers: workers.length,
        refused: active.rejected.size,
        firstRefusal: [...active.rejected.values()][0] ?? null,
        requests: summary.total.requests,
        allLost: workers.every((w) => w.lost),
        blocked: active.blocked,
      });
  await db.transaction(async (tx) => {
    const fields = {
      error: outcome ? (run.error ?? outcome.error) : run.error,
      finishedAt: run.finishedAt ?? new Date(),
      thresholds: JSON.stringify(thresholds),
      passed,
      durationS: summary.durationS,
      rps: summary.total.rps,
      warnings: JSON.stringify(runWarnings(active, workers, summary.total.requests, summary.durationS)),
      ...(active.capacity ? { capacity: JSON.stringify(active.capacity.result()) } : {}),
    };
    const owner = deps.lease.owner;
    if (outcome)
      await deps.lifecycle.apply(run, "end", fields, { to: outcome.status, writer: tx.runs, owner });
    else await tx.runs.updateOwned(runId, owner, fields);
    const planned = new Map((await tx.runWorkers.list(runId)).map((row) => [row.workerId, row.vus]));
    for (const { workerId, update } of aggregator.workerUpdates()) {
      const { peakVus, peakCpu, peakEventLoopDelayMs } = active.saturation.peaks(workerId);
      await tx.runWorkers.update(runId, workerId, {
        ...update,
        peakCpu,
        peakEventLoopDelayMs,
        // `vus` is the most it may have run: the planned share, or what it ran once raised past it.
        vus: Math.max(planned.get(workerId) ?? 0, peakVus),
        ...(active.rejected.has(workerId) ? { status: "failed" } : {}),
      });
    }
  });
  pipeline.forget(runId);
  // Every batch is merged: the run's workers are free for the next run now, not at their next heartbeat.
  for (const worker of workers) registry.release(worker.workerId, runId);
  log.info(
    { runId, status: outcome?.status ?? run.status, requests: summary.total.requests, passed },
    "run ended",
  );
  return true;
}
