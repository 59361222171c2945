import type { Database } from "@volley/db";
import {
  EXECUTOR_CAPABILITIES,
  type LoadChangeRecord,
  labelsMatch,
  Partition,
  type RowRange,
  recordedAt,
  runPeakVus,
  runPlannedMs,
  runVuCeiling,
  selectorText,
  ValidationError,
  VolleyError,
  type WorkerInfo,
} from "@volley/protocol";
import { type LiveAggregators, routeFields, routeWorkers } from "../pipeline/aggregator-directory.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import type { ActiveRun, RunLaunchState } from "./active-run.js";
import type { RowGrants, RowHandover } from "./row-handover.js";

/**
 * How far ahead of now the new split takes effect: every worker, old and new, gets its message
 * (a new one also starts its threads) before that moment, so all switch at the same point.
 */
export const REBALANCE_LEAD_MS = 1000;

/** Why a run cannot take new workers, naming the field; null when it can. */
function refusal(active: ActiveRun): ValidationError | null {
  const { scenario } = active;
  for (const part of scenario.parts) {
    const why = EXECUTOR_CAPABILITIES[part.load.executor].noRebalanceBecause;
    if (why !== undefined) {
      return new ValidationError("run", [
        { path: part.name ? `scenarios.${part.name}.load.executor` : "load.executor", message: why },
      ]);
    }
  }
  return null;
}

/**
 * The run's workers give up a share of their unused unique rows for the joining ones (share:
 * the joiners' threads over all threads, so every thread ends up with about as many rows left),
 * dealt to the joiners still ready once the answers are in.
 */
async function handOverRows(
  active: ActiveRun,
  launch: RunLaunchState,
  rows: RowHandover,
  joining: WorkerInfo[],
  readyOutside: () => WorkerInfo[],
  registry: WorkerRegistry,
): Promise<{ joining: WorkerInfo[]; handover: RowGrants }> {
  const joiningThreads = joining.reduce((sum, w) => sum + w.threads, 0);
  const allThreads = launch.split.reduce((sum, s) => sum + s.threads, 0) + joiningThreads;
  const share = joiningThreads / allThreads;
  launch.rebalancing = true;
  let released: Record<string, RowRange[]>;
  try {
    released = await rows.collect(
      launch.split.map((s) => s.workerId),
      (workerId, handover) =>
        registry.send(workerId, { type: "release-rows", runId: active.id, handover, share }),
    );
  } finally {
    launch.rebalancing = false;
  }
  const asked = new Set(joining.map((w) => w.id));
  const still = readyOutside().filter((w) => asked.has(w.id));
  if (still.length === 0 || active.stopReason || active.finishing) {
    throw new VolleyError(
      "VOL_ERR_RUN_NOT_ACTIVE",
      "the joining workers left or the run ended while the others gave up rows: those rows are not used",
    );
  }
  const handover = rows.grant(
    released,
    still.map((w) => ({ workerId: w.id, threads: w.threads })),
  );
  return { joining: still, handover };
}

/** The moment the new split takes effect, ms since the run's start; throws when it is too late. */
function switchMoment(active: ActiveRun, now: number): number {
  const atMs = Math.max(0, now - active.startAt) + REBALANCE_LEAD_MS;
  if (atMs >= runPlannedMs(active.scenario)) {
    throw new VolleyError("VOL_ERR_RUN_NOT_ACTIVE", "the run's load phase ends too soon to take new workers");
  }
  return atMs;
}

/**
 * Gives the ready workers that are not in the run a share of it: the split is redone over the
 * run's workers and the new ones (weights: threads), each old worker is told its new share from
 * a moment `REBALANCE_LEAD_MS` ahead, and each new one gets the run's slice with that moment, the
 * load changes made so far, VU numbers after every number used and, for unique feeders, rows
 * the others gave up (see `RowHandover`). Nothing is counted twice: up to the moment the old
 * split holds, after it the new one (see the engine's executors).
 */
export async function rebalanceRun(
  active: ActiveRun,
  deps: { db: Database; registry: WorkerRegistry; liveAggregators?: () => Promise<LiveAggregators> },
  now: number,
): Promise<LoadChangeRecord> {
  const problem = refusal(active);
  if (problem) throw problem;
  const launch = active.launch;
  if (!launch) {
    throw new VolleyError(
      "VOL_ERR_RUN_NOT_ACTIVE",
      "this master took the run over from the one that started it, which kept its env values: the run cannot take new workers",
    );
  }
  let atMs = switchMoment(active, now);
  // Only workers its selector would have chosen join it (a run on pool=eu stays on pool=eu).
  const selector = active.scenario.workers?.selector ?? {};
  const readyOutside = () =>
    deps.registry
      .ready()
      .map((e) => e.info)
      .filter((w) => !active.aggregator.hasWorker(w.id) && labelsMatch(w.labels, selector));
  let joining = readyOutside();
  if (joining.length === 0) {
    const which = Object.keys(selector).length ? ` matching ${selectorText(selector)}` : "";
    throw new VolleyError(
      "VOL_ERR_NO_WORKERS",
      `no ready worker${which} outside the run: start one with \`volley worker --master URL\`, then rebalance`,
    );
  }
  if (launch.rebalancing) {
    throw new VolleyError(
      "VOL_ERR_RUN_ACTIVE",
      "a rebalance of this run is under way: try again once it is done",
    );
  }
  let handover: RowGrants | null = null;
  if (launch.rows) {
    ({ joining, handover } = await handOverRows(
      active,
      launch,
      launch.rows,
      joining,
      readyOutside,
      deps.registry,
    ));
    // The answers took a moment: the split switches a lead after they are in.
    atMs = switchMoment(active, Date.now());
  }
  const split = [...launch.split, ...joining.map((w) => ({ workerId: w.id, threads: w.threads }))];
  const weights = split.map((s) => s.threads);
  launch.split.forEach((s, index) => {
    deps.registry.send(s.workerId, {
      type: "rebalance",
      runId: active.id,
      atMs,
      workerStep: { weights, index },
    });
  });
  launch.rebalances++;
  const peak = runPeakVus(active.scenario);
  // Joiners number their VUs past every number the run may use (its ceiling, once per rebalance).
  const ceiling = runVuCeiling(active.scenario);
  const live = (await deps.liveAggregators?.()) ?? new Map();
  const routes = routeWorkers(
    joining.map((w) => w.id),
    live,
    active.routes.values(),
  );
  const rows = joining.map((worker, j) => {
    const index = launch.split.length + j;
    const aggregator = routes.get(worker.id) ?? null;
    active.routes.set(worker.id, aggregator);
    deps.registry.send(worker.id, {
      type: "start-run",
      runId: active.id,
      scenario: launch.input,
      partition: [{ weights, index }],
      startAt: active.startAt,
      data: {},
      attachments: {},
      ...(launch.packedFiles === null ? {} : { packedFiles: launch.packedFiles }),
      env: launch.env,
      join: {
        atMs,
        changes: active.appliedChanges,
        vuNumberOffset: ceiling * launch.rebalances,
        ...(handover ? { rows: handover.grants.get(worker.id) } : {}),
      },
      ...routeFields(aggregator, live),
    });
    deps.registry.assign(worker.id, active.id);
    active.aggregator.addWorker(worker.id, worker.name);
    active.seen.set(worker.id, now);
    return {
      runId: active.id,
      workerId: worker.id,
      name: worker.name,
      host: worker.host,
      threads: worker.threads,
      vus: new Partition([{ weights, index }]).count(peak),
      status: "running",
    };
  });
  await deps.db.runWorkers.createMany(rows);
  launch.split = split;
  return { at: recordedAt(atMs), workers: split.length, ...(handover ? { rows: handover.counts } : {}) };
}
