import type { Database, RunRow } from "@volley/db";
import type { RunStatus } from "@volley/protocol";
import type { Logger } from "pino";
import type { StatsPipeline } from "../pipeline/stats-pipeline.js";
import { type ActiveRun, newActiveRun } from "./active-run.js";
import { runColumns } from "./run-columns.js";
import type { RunLease } from "./run-lease.js";
import { nextStatus } from "./run-lifecycle.js";

export type StartedRun = RunRow & { startAt: number };

/**
 * The active runs this master may take over (no owner, its own, or an owner whose lease ran out),
 * except those in `except` (its active and queued runs). An orphan that never started cannot be
 * resumed: it is claimed and failed here.
 */
export async function orphanedRuns(
  db: Database,
  lease: RunLease,
  except: readonly string[] = [],
): Promise<StartedRun[]> {
  const started: StartedRun[] = [];
  for (const run of await db.runs.listActive()) {
    if (except.includes(run.id) || !lease.claimable(run)) continue;
    if (run.status !== "queued" && run.startAt !== null) {
      started.push({ ...run, startAt: run.startAt });
    } else if (await lease.claim(run.id)) {
      await db.runs.update(run.id, {
        status: nextStatus(run.status as RunStatus, "fail"),
        finishedAt: new Date(),
        error: "the master stopped before the run started",
      });
    }
  }
  return started;
}

export interface TakeOverDeps {
  lease: RunLease;
  pipeline: StatsPipeline;
  ingest: { open(runId: string): void };
  log: Logger;
  overrunMs?: number;
}

/**
 * Claims an orphaned run and rebuilds what following it needs: its aggregator from the last
 * checkpoint, its workers as seen now (they get the absence grace to come back), its queue.
 * Null when another master claimed it first.
 */
export async function takeOver(run: StartedRun, deps: TakeOverDeps): Promise<ActiveRun | null> {
  if (!(await deps.lease.claim(run.id))) return null;
  const aggregator = await deps.pipeline.get(run.id);
  if (!aggregator) return null;
  const scenario = runColumns.scenario(run);
  const active = newActiveRun(run.id, scenario, run.startAt, aggregator, deps.overrunMs ?? 30_000);
  active.stopReason = run.stopReason;
  active.loadChanges = runColumns.loadChanges(run);
  const capacity = runColumns.capacity(run);
  if (active.capacity && capacity) {
    // Steps judged before; the step in progress is judged on the seconds merged from now on.
    active.capacity.restore(capacity.steps ?? []);
    active.capacityStepsSaved = active.capacity.steps.length;
  }
  const now = Date.now();
  for (const worker of aggregator.workerList()) active.seen.set(worker.workerId, now);
  deps.ingest.open(run.id);
  deps.log.info(
    { runId: run.id, previousOwner: run.owner },
    run.owner === deps.lease.owner ? "resumed the active run after a restart" : "took over an orphaned run",
  );
  return active;
}
