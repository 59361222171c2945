import { type Database, type PackedRunFile, RunFileRepository } from "@volley/db";
import {
  recordedStatsNames,
  runExecutorLabel,
  runPlannedMs,
  type Scenario,
  type WorkerInfo,
} from "@volley/protocol";
import { type LiveAggregators, routeFields, routeWorkers } from "../pipeline/aggregator-directory.js";
import { maxBatchSecond } from "../pipeline/batch-check.js";
import { newWorker } from "../pipeline/merge-state.js";
import { RunAggregator } from "../pipeline/run-aggregator.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import { type ActiveRun, newActiveRun } from "./active-run.js";
import { packRunFiles } from "./packed-files.js";
import { RowHandover } from "./row-handover.js";
import type { RunInputs } from "./run-data.js";
import { newRunId } from "./run-id.js";
import type { RunLease } from "./run-lease.js";
import { nextStatus } from "./run-lifecycle.js";
import { type PlannedWorker, planRun } from "./run-plan.js";
import type { QueuedRun } from "./run-queue.js";
import { runSetups } from "./run-scripts.js";
import type { RunSchedulerOptions } from "./scheduler-options.js";
import { selectRunWorkers } from "./worker-selection.js";

export interface LaunchedRun {
  id: string;
  /** The scenario as the user wrote it (stored, and sent to workers, as is). */
  input: unknown;
  scenario: Scenario;
  startAt: number;
  plan: PlannedWorker[];
  /** Who asked for it. */
  startedBy?: string;
}

/**
 * Everything of a new run's start but telling the workers (`sendSlices`, which the scheduler
 * does once the run is its active one): each script's setup() (its result reaches every VU as
 * vu.setupData), the run's files packed once, the plan over the ready workers no other run
 * `held`, the run written,
 * its pipeline opened, and the run as the scheduler keeps it. 409 when no worker is ready.
 */
export async function openRun(
  options: RunSchedulerOptions,
  run: Omit<QueuedRun, "id"> & { queuedId?: string },
  held: (info: WorkerInfo) => boolean = () => false,
): Promise<{ active: ActiveRun; launched: LaunchedRun; packedFiles: string | null }> {
  const { scenario, inputs } = run;
  const hooks = { bundles: inputs.scripts, hooks: inputs.hooks, env: inputs.env };
  const setupData = await runSetups(scenario, hooks);
  const packedFiles = await packRunFiles({
    data: inputs.data,
    attachments: inputs.attachments,
    scripts: inputs.scripts,
    setupData,
  });
  const ready = await selectRunWorkers(options.registry, scenario, options.finishingWaitMs ?? 10_000, held);
  const { launched, aggregator } = await recordNewRun(
    options,
    run,
    ready.map((e) => e.info),
  );
  const { id, startAt, plan } = launched;
  options.pipeline.register(aggregator);
  options.ingest.open(id);
  const active = newActiveRun(id, scenario, startAt, aggregator, options.overrunMs ?? 30_000);
  active.scripts = { ...hooks, setupData };
  active.launch = {
    input: run.input,
    env: inputs.env,
    packedFiles,
    split: plan.map((p) => ({ workerId: p.workerId, threads: p.threads })),
    rebalances: 0,
    rows: RowHandover.forRun(scenario, inputs.data, plan),
    rebalancing: false,
  };
  return { active, launched, packedFiles };
}

/**
 * Plans a new run over the ready workers, writes it, and makes its aggregator (see `openRun`).
 */
export async function recordNewRun(
  deps: { db: Database; lease: RunLease; startDelayMs?: number },
  run: { input: unknown; scenario: Scenario; inputs: RunInputs; queuedId?: string; startedBy?: string },
  ready: WorkerInfo[],
): Promise<{ launched: LaunchedRun; aggregator: RunAggregator }> {
  const { scenario } = run;
  const plan = planRun(
    scenario,
    ready.map((w) => ({ id: w.id, name: w.name, host: w.host, threads: w.threads })),
  );
  const startAt = Date.now() + (deps.startDelayMs ?? 1500);
  const launched: LaunchedRun = {
    id: run.queuedId ?? newRunId(),
    input: run.input,
    scenario,
    startAt,
    plan,
    startedBy: run.startedBy,
  };
  if (run.queuedId) await recordQueuedStart(deps.db, deps.lease, launched);
  else await recordRun(deps.db, deps.lease, launched, await RunFileRepository.pack(run.inputs.files));
  const aggregator = new RunAggregator({
    runId: launched.id,
    startAt,
    requestOrder: recordedStatsNames(scenario),
    maxSecond: maxBatchSecond(scenario),
    workers: plan.map((p) => newWorker(p.workerId, p.name)),
    scenario,
  });
  return { launched, aggregator };
}

/** Writes a new run, owned by this master, its workers and its kept files in one transaction. */
export async function recordRun(
  db: Database,
  lease: RunLease,
  run: LaunchedRun,
  files: PackedRunFile[] = [],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.runs.create({
      id: run.id,
      name: run.scenario.name,
      status: nextStatus(null, "start"),
      executor: runExecutorLabel(run.scenario),
      scenario: JSON.stringify(run.input),
      plannedDurationMs: runPlannedMs(run.scenario),
      startAt: run.startAt,
      startedAt: new Date(run.startAt),
      startedBy: run.startedBy,
      ...lease.newRun(),
    });
    await tx.runWorkers.createMany(runWorkerRows(run));
    await tx.files.saveMany(run.id, files);
  });
}

/** A queued run's turn came: its row (and kept files) exist; it gets its start and its workers. */
async function recordQueuedStart(db: Database, lease: RunLease, run: LaunchedRun): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.runs.updateOwned(run.id, lease.owner, {
      status: nextStatus("queued", "start"),
      startAt: run.startAt,
      startedAt: new Date(run.startAt),
      leaseUntil: Date.now() + lease.leaseMs,
    });
    await tx.runWorkers.createMany(runWorkerRows(run));
  });
}

function runWorkerRows(run: LaunchedRun) {
  return run.plan.map((p) => ({
    runId: run.id,
    workerId: p.workerId,
    name: p.name,
    host: p.host,
    threads: p.threads,
    vus: p.vus,
    status: "running",
  }));
}

/**
 * Sends each planned worker its slice (with the run's env, and its data and files packed once,
 * see `packRunFiles`) and marks it running. Each worker's batches are routed over the `live`
 * aggregators (none: straight to the run's queue); returns the routes.
 */
export function sendSlices(
  registry: WorkerRegistry,
  run: LaunchedRun,
  inputs: RunInputs,
  packedFiles: string | null,
  live: LiveAggregators = new Map(),
): Map<string, string | null> {
  const routes = routeWorkers(
    run.plan.map((p) => p.workerId),
    live,
  );
  for (const p of run.plan) {
    registry.send(p.workerId, {
      type: "start-run",
      runId: run.id,
      scenario: run.input,
      partition: p.partition,
      startAt: run.startAt,
      data: {},
      attachments: {},
      ...(packedFiles === null ? {} : { packedFiles }),
      env: inputs.env,
      ...routeFields(routes.get(p.workerId) ?? null, live),
    });
    registry.assign(p.workerId, run.id);
  }
  return routes;
}
