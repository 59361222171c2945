import type { Database } from "@volley/db";
import {
  formatDuration,
  type LiveMessage,
  parseScenario,
  plannedDurationMs,
  type RunDetail,
  requestName,
  type SaturationWarning,
  type Scenario,
  VolleyError,
  type WorkerHeartbeat,
} from "@volley/protocol";
import { evaluateThresholds } from "@volley/stats";
import type { Logger } from "pino";
import { newWorker } from "../pipeline/merge-state.js";
import { isWorkerDone, RunAggregator, workerStatus } from "../pipeline/run-aggregator.js";
import type { StatsPipeline } from "../pipeline/stats-pipeline.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import { newRunId } from "./run-id.js";
import { planRun } from "./run-plan.js";
import { summaryFromRows, toDetail, toListItem, toWorkerInfo } from "./run-views.js";
import { SaturationTracker } from "./saturation-tracker.js";

export interface RunSchedulerOptions {
  db: Database;
  registry: WorkerRegistry;
  pipeline: StatsPipeline;
  log: Logger;
  publish: (message: LiveMessage) => void;
  /** Time between accepting a run and its common start, for workers to spawn threads. @defaultValue 1500 */
  startDelayMs?: number;
  /** A worker of a run that is neither connected nor done for this long is lost. @defaultValue 15000 */
  absentGraceMs?: number;
  /** Extra time past the planned end before workers are told again to stop, then given up on. @defaultValue 30000 */
  overrunMs?: number;
}

interface ActiveRun {
  id: string;
  scenario: Scenario;
  startAt: number;
  deadline: number;
  aggregator: RunAggregator;
  saturation: SaturationTracker;
  /** When each worker of the run was last seen connected and in this run. */
  seen: Map<string, number>;
  rejected: Map<string, string>;
  stopReason: string | null;
  finishing: boolean;
}

/**
 * Runs from creation to report: plans and starts them across workers, follows their workers,
 * stops them, and writes the final status once every batch is merged. One run at a time.
 */
export class RunScheduler {
  private active: ActiveRun | null = null;
  private creating = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: RunSchedulerOptions) {}

  get activeRunId(): string | null {
    return this.active?.id ?? null;
  }

  start(): void {
    this.timer = setInterval(() => void this.watch(), 1000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Validates and starts a run; throws VolleyError (400/409) before writing anything. */
  async create(input: unknown): Promise<{ id: string; status: string }> {
    const scenario = parseScenario(input);
    if (this.active || this.creating) {
      const which = this.active ? `run ${this.active.id}` : "another run";
      throw new VolleyError("VOL_ERR_RUN_ACTIVE", `${which} is still active; stop it or wait for it to end`);
    }
    const ready = this.options.registry.ready();
    if (ready.length === 0) {
      throw new VolleyError(
        "VOL_ERR_NO_WORKERS",
        "no worker is ready: start one with `pnpm volley worker --master URL`",
      );
    }
    this.creating = true;
    try {
      const plan = planRun(
        scenario,
        ready.map((e) => ({ id: e.info.id, name: e.info.name, host: e.info.host, threads: e.info.threads })),
      );
      const id = newRunId();
      const startAt = Date.now() + (this.options.startDelayMs ?? 1500);
      const planned = plannedDurationMs(scenario.load);
      await this.options.db.transaction(async (tx) => {
        await tx.runs.create({
          id,
          name: scenario.name,
          status: "queued",
          executor: scenario.load.executor,
          scenario: JSON.stringify(input),
          plannedDurationMs: planned,
        });
        await tx.runWorkers.createMany(
          plan.map((p) => ({
            runId: id,
            workerId: p.workerId,
            name: p.name,
            host: p.host,
            threads: p.threads,
            vus: p.vus,
            status: "running",
          })),
        );
        await tx.runs.update(id, { status: "running", startAt, startedAt: new Date(startAt) });
      });
      const aggregator = new RunAggregator({
        runId: id,
        startAt,
        requestOrder: scenario.requests.map(requestName),
        workers: plan.map((p) => newWorker(p.workerId, p.name)),
      });
      this.options.pipeline.register(aggregator);
      this.active = this.newActive(id, scenario, startAt, aggregator);
      for (const p of plan) {
        this.options.registry.send(p.workerId, {
          type: "start-run",
          runId: id,
          scenario: input,
          partition: p.partition,
          startAt,
        });
        const entry = this.options.registry.get(p.workerId);
        if (entry) {
          entry.info.state = "running";
          entry.info.runId = id;
        }
      }
      this.options.log.info({ runId: id, workers: plan.length, startAt }, "run started");
      await this.publishStatus(id);
      return { id, status: "running" };
    } finally {
      this.creating = false;
    }
  }

  /** Graceful stop; the run ends once the workers' final batches are merged. */
  async stopRun(id: string, reason = "user"): Promise<void> {
    const run = await this.options.db.runs.get(id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${id}`);
    if (!this.active || this.active.id !== id) {
      throw new VolleyError(
        "VOL_ERR_RUN_NOT_ACTIVE",
        `run ${id} is ${run.status}; only an active run can be stopped`,
      );
    }
    this.active.stopReason ??= reason;
    await this.options.db.runs.update(id, { status: "stopping", stopReason: this.active.stopReason });
    this.sendStop(this.active);
    await this.publishStatus(id);
  }

  /** After a master restart: picks up the run that was active, or fails one that never started. */
  async resume(): Promise<void> {
    for (const run of await this.options.db.runs.listActive()) {
      if (run.status === "queued" || run.startAt === null) {
        await this.options.db.runs.update(run.id, {
          status: "failed",
          finishedAt: new Date(),
          error: "the master stopped before the run started",
        });
        continue;
      }
      const aggregator = await this.options.pipeline.get(run.id);
      if (!aggregator || this.active) continue;
      const scenario = parseScenario(JSON.parse(run.scenario));
      this.active = this.newActive(run.id, scenario, run.startAt, aggregator);
      this.active.stopReason = run.stopReason;
      const now = Date.now();
      for (const worker of aggregator.workerList()) this.active.seen.set(worker.workerId, now);
      this.options.log.info({ runId: run.id }, "resumed the active run after a restart");
    }
  }

  /** A worker connected; `activeRunId` is the run it is still running, if any. */
  workerConnected(workerId: string, activeRunId: string | null): void {
    const active = this.active;
    if (activeRunId && (!active || active.id !== activeRunId)) {
      // A run the master no longer runs: the worker must stop it.
      this.options.registry.send(workerId, { type: "stop-run", runId: activeRunId });
      return;
    }
    if (active && activeRunId === active.id && active.aggregator.hasWorker(workerId)) {
      active.seen.set(workerId, Date.now());
      active.aggregator.markLost(workerId, false);
      if (active.stopReason) this.options.registry.send(workerId, { type: "stop-run", runId: active.id });
    }
  }

  workerHeartbeat(workerId: string, heartbeat: WorkerHeartbeat, saturated: boolean): void {
    const active = this.active;
    if (!active || heartbeat.runId !== active.id || !active.aggregator.hasWorker(workerId)) return;
    active.seen.set(workerId, Date.now());
    const name = this.options.registry.get(workerId)?.info.name ?? workerId;
    active.saturation.record(workerId, name, heartbeat, saturated);
  }

  workerLost(workerId: string): void {
    const active = this.active;
    if (active?.aggregator.hasWorker(workerId)) {
      active.aggregator.markLost(workerId);
      this.options.log.warn({ runId: active.id, workerId }, "worker lost during the run");
    }
  }

  workerRejected(workerId: string, runId: string, message: string): void {
    const active = this.active;
    if (!active || active.id !== runId) return;
    active.rejected.set(workerId, message);
    active.aggregator.markLost(workerId);
    this.options.log.error({ runId, workerId, message }, "worker could not start its part of the run");
  }

  /** Called by the pipeline once every worker finished and every batch is merged. */
  async runComplete(runId: string): Promise<void> {
    const active = this.active?.id === runId ? this.active : null;
    if (active) {
      if (active.finishing) return;
      active.finishing = true;
    }
    try {
      await this.finalize(runId, active);
    } catch (error) {
      this.options.log.error({ err: error, runId }, "could not finalize the run");
      if (active) active.finishing = false;
      return;
    }
    if (active) this.active = null;
  }

  private async finalize(runId: string, active: ActiveRun | null): Promise<void> {
    const { db, pipeline } = this.options;
    const aggregator = await pipeline.get(runId);
    if (!aggregator) return;
    await pipeline.flush(runId);
    const run = await db.runs.get(runId);
    if (!run) return;
    const scenario = active?.scenario ?? parseScenario(JSON.parse(run.scenario));
    const summary = aggregator.summary();
    const thresholds = evaluateThresholds(scenario.thresholds, summary);
    const passed = thresholds.length ? thresholds.every((t) => t.pass) : null;
    const terminal = ["finished", "failed", "aborted"].includes(run.status);
    const workers = aggregator.workerList();
    let status = run.status;
    let error = run.error;
    if (!terminal) {
      const rejected = active?.rejected ?? new Map<string, string>();
      if (rejected.size === workers.length) {
        status = "failed";
        error = [...rejected.values()][0] ?? "every worker refused the run";
      } else if (summary.total.requests === 0 && workers.every((w) => w.lost)) {
        status = "failed";
        error = "every worker of the run was lost";
      } else {
        status = run.stopReason ? "aborted" : "finished";
      }
    }
    await db.transaction(async (tx) => {
      await tx.runs.update(runId, {
        status,
        error,
        finishedAt: run.finishedAt ?? new Date(),
        thresholds: JSON.stringify(thresholds),
        passed,
        durationS: summary.durationS,
        rps: summary.total.rps,
        ...(active ? { warnings: JSON.stringify(active.saturation.warnings()) } : {}),
      });
      for (const { workerId, update } of aggregator.workerUpdates()) {
        await tx.runWorkers.update(runId, workerId, {
          ...update,
          ...(active ? active.saturation.peaks(workerId) : {}),
          ...(active?.rejected.has(workerId) ? { status: "failed" } : {}),
        });
      }
    });
    pipeline.forget(runId);
    if (active) {
      for (const worker of workers) {
        const entry = this.options.registry.get(worker.workerId);
        if (entry?.info.runId === runId) entry.info.runId = null;
      }
    }
    this.options.log.info({ runId, status, requests: summary.total.requests, passed }, "run ended");
    await this.publishStatus(runId);
  }

  /** Once a second: workers gone too long are lost; a run past its deadline is stopped, then given up. */
  private async watch(): Promise<void> {
    const active = this.active;
    if (!active || active.finishing) return;
    const now = Date.now();
    const grace = this.options.absentGraceMs ?? 15_000;
    for (const worker of active.aggregator.workerList()) {
      if (worker.lost || active.rejected.has(worker.workerId)) continue;
      const entry = this.options.registry.get(worker.workerId);
      const present = entry?.channel && entry.info.state !== "lost" && entry.info.runId === active.id;
      if (present) active.seen.set(worker.workerId, now);
      else if (now - (active.seen.get(worker.workerId) ?? now) > grace && !isWorkerDone(worker)) {
        active.aggregator.markLost(worker.workerId);
        this.options.log.warn(
          { runId: active.id, workerId: worker.workerId },
          "worker absent too long: lost",
        );
      }
    }
    const overrun = this.options.overrunMs ?? 30_000;
    if (now > active.deadline && !active.stopReason) {
      active.stopReason = "deadline";
      this.options.log.warn(
        { runId: active.id },
        `run passed its planned end by ${formatDuration(overrun)}; stopping it`,
      );
      await this.options.db.runs.update(active.id, { status: "stopping" });
      this.sendStop(active);
    } else if (now > active.deadline + overrun) {
      for (const worker of active.aggregator.workerList()) {
        if (!isWorkerDone(worker)) active.aggregator.markLost(worker.workerId);
      }
    }
  }

  private newActive(id: string, scenario: Scenario, startAt: number, aggregator: RunAggregator): ActiveRun {
    return {
      id,
      scenario,
      startAt,
      deadline:
        startAt +
        plannedDurationMs(scenario.load) +
        scenario.load.gracefulStop +
        (this.options.overrunMs ?? 30_000),
      aggregator,
      saturation: new SaturationTracker(startAt),
      seen: new Map(aggregator.workerList().map((w) => [w.workerId, Date.now()])),
      rejected: new Map(),
      stopReason: null,
      finishing: false,
    };
  }

  private sendStop(active: ActiveRun): void {
    for (const worker of active.aggregator.workerList()) {
      this.options.registry.send(worker.workerId, { type: "stop-run", runId: active.id });
    }
  }

  async detail(runId: string): Promise<RunDetail | null> {
    const { db } = this.options;
    const run = await db.runs.get(runId);
    if (!run) return null;
    const active = this.active?.id === runId ? this.active : null;
    const resolved = active
      ? active.aggregator.summary()
      : summaryFromRows(run, await db.aggregates.list(runId));
    const rows = await db.runWorkers.list(runId);
    // While the run is active, the aggregator knows each worker's figures better than the rows.
    const live = new Map(active?.aggregator.workerList().map((w) => [w.workerId, w]) ?? []);
    const total = resolved.total.requests;
    const workers = rows.map((row) => {
      const worker = live.get(row.workerId);
      const current = worker
        ? { ...row, requests: worker.requests, lostBatches: worker.lostBatches, status: workerStatus(worker) }
        : row;
      return toWorkerInfo(current, total, active?.saturation.peaks(row.workerId));
    });
    const warnings = active
      ? active.saturation.warnings()
      : (JSON.parse(run.warnings) as SaturationWarning[]);
    return toDetail(run, resolved, workers, warnings);
  }

  private async publishStatus(runId: string): Promise<void> {
    const run = await this.options.db.runs.get(runId);
    if (run) this.options.publish({ type: "run-status", run: toListItem(run) });
  }
}
