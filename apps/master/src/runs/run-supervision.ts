import type { Database } from "@volley/db";
import { formatDuration } from "@volley/protocol";
import type { Logger } from "pino";
import { type LiveAggregators, routeFields, routeWorkers } from "../pipeline/aggregator-directory.js";
import { isWorkerDone } from "../pipeline/merge-state.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import { type ActiveRun, markAbsentWorkers } from "./active-run.js";
import type { StopReason } from "./run-lifecycle.js";
import { brokenAbortThreshold } from "./threshold-abort.js";

export interface SupervisionDeps {
  db: Database;
  registry: WorkerRegistry;
  log: Logger;
  absentGraceMs?: number;
  overrunMs?: number;
  /** Stops the run gracefully with a reason (the scheduler's stopRun). */
  stopRun: (runId: string, reason: StopReason) => Promise<unknown>;
  /** Aggregator partitions alive now. */
  liveAggregators: () => Promise<LiveAggregators>;
  /** Merges what a dead partition's stream holds of the run, when no live partition takes its workers. */
  drainPartition: (partition: string, runId: string) => void;
}

/**
 * What the scheduler checks on the active run once a second: a threshold with abortOnFail
 * broken, workers absent too long (lost), the planned end passed (told to stop, then whatever
 * is still silent past the overrun is lost so the run can end).
 */
export async function superviseRun(active: ActiveRun, deps: SupervisionDeps, now: number): Promise<void> {
  await superviseCapacity(active, deps);
  if (!active.stopReason) {
    const broken = brokenAbortThreshold(active, now);
    if (broken) {
      deps.log.warn(
        { runId: active.id, threshold: broken.key, actual: broken.actual },
        `threshold ${broken.key} ${broken.expression} broken (abortOnFail): stopping the run`,
      );
      await deps.stopRun(active.id, "threshold");
    }
  }
  await rerouteWorkers(active, deps);
  for (const workerId of markAbsentWorkers(active, deps.registry, now, deps.absentGraceMs)) {
    deps.log.warn({ runId: active.id, workerId }, "worker absent too long: lost");
  }
  const overrun = deps.overrunMs ?? 30_000;
  if (now > active.deadline && !active.stopReason) {
    deps.log.warn(
      { runId: active.id },
      `run passed its planned end by ${formatDuration(overrun)}; stopping it`,
    );
    // The one way a run is stopped: the reason is stored and pushed live like any other stop.
    await deps.stopRun(active.id, "deadline");
  } else if (now > active.deadline + overrun) {
    for (const worker of active.aggregator.workerList()) {
      if (!isWorkerDone(worker)) active.aggregator.markLost(worker.workerId);
    }
  }
}

/**
 * A capacity search: each newly judged step is written to the run (a master that takes the run
 * over resumes from it); once the search has its answer, the run stops (status finished).
 */
async function superviseCapacity(active: ActiveRun, deps: SupervisionDeps): Promise<void> {
  const judge = active.capacity;
  if (!judge) return;
  if (judge.steps.length > active.capacityStepsSaved) {
    active.capacityStepsSaved = judge.steps.length;
    await deps.db.runs.update(active.id, { capacity: JSON.stringify(judge.result()) });
  }
  if (judge.done && !active.stopReason) {
    deps.log.info(
      { runId: active.id, capacity: judge.result().sentence },
      "capacity search answered: stopping the run",
    );
    await deps.stopRun(active.id, "capacity");
  }
}

/**
 * Moves the workers whose aggregator stopped beating to a live one (or straight to the run's
 * queue). What they sent through the dead one waits in its partition's stream for its replacement:
 * the master merges those batches late, exactly, by their seqs.
 */
async function rerouteWorkers(active: ActiveRun, deps: SupervisionDeps): Promise<void> {
  const stranded = active.aggregator
    .workerList()
    .filter((w) => !w.lost && !isWorkerDone(w) && typeof active.routes.get(w.workerId) === "string");
  if (stranded.length === 0) return;
  const live = await deps.liveAggregators();
  for (const worker of stranded) {
    const from = active.routes.get(worker.workerId) ?? null;
    if (from === null || live.has(from)) continue;
    const to = routeWorkers([worker.workerId], live, active.routes.values()).get(worker.workerId) ?? null;
    active.routes.set(worker.workerId, to);
    // Nobody is left to read what the worker sent through the dead partition: the master does.
    if (to === null) deps.drainPartition(from, active.id);
    deps.registry.send(worker.workerId, {
      type: "stats-route",
      runId: active.id,
      aggregator: to,
      ...routeFields(to, live),
    });
    deps.log.warn(
      { runId: active.id, workerId: worker.workerId, from, to },
      "aggregator gone: worker rerouted",
    );
  }
}

/** Tells every worker of the run to stop it. */
export function sendStop(active: ActiveRun, registry: WorkerRegistry): void {
  for (const worker of active.aggregator.workerList()) {
    registry.send(worker.workerId, { type: "stop-run", runId: active.id });
  }
}
