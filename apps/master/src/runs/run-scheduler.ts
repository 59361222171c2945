import {
  isActiveRunStatus,
  type LoadChangeRecord,
  type LoadPatch,
  type RunDetail,
  VolleyError,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";
import { LoopGap } from "../loop-gap.js";
import { type ActiveRun, batchesStillQueued, creditStall } from "./active-run.js";
import { orphanedRuns, takeOver } from "./orphaned-runs.js";
import { prepareRun, type RunExtras } from "./prepare-run.js";
import { runDetail, runDetailAndStats, runStats } from "./run-details.js";
import { finalizeRun } from "./run-finalizer.js";
import { openRun, sendSlices } from "./run-launch.js";
import { RunLifecycle, type StopReason } from "./run-lifecycle.js";
import { addWorkersToRun, changeRunLoad } from "./run-load.js";
import { busyMessage, type QueuedRun, RunQueue } from "./run-queue.js";
import { runTeardowns } from "./run-scripts.js";
import { sendStop, superviseRun } from "./run-supervision.js";
import { toListItem } from "./run-views.js";
import { RunWorkerEvents } from "./run-worker-events.js";
import type { RunSchedulerOptions } from "./scheduler-options.js";

export type { RunIngest, RunSchedulerOptions } from "./scheduler-options.js";

/**
 * Runs from creation to report: plans and starts them across workers, follows their workers,
 * stops them, and writes the final status once every batch is merged. One run at a time; runs
 * asked to wait queue behind it and start in order.
 */
export class RunScheduler {
  private active: ActiveRun | null = null;
  private readonly queue: RunQueue;
  /** Every move of a run's status after it was written (see run-lifecycle.ts). */
  private readonly lifecycle: RunLifecycle;
  private creating = false;
  private adopting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastRenewal = 0;
  private lastAdoption = 0;
  private readonly gap = new LoopGap(1000);

  private readonly liveAggregators = () => this.options.ingest.liveAggregators();
  /** What the workers' messages mean for the active run. */
  readonly workers: RunWorkerEvents;

  constructor(private readonly options: RunSchedulerOptions) {
    this.lifecycle = new RunLifecycle(options.db.runs, (runId) => this.publishStatus(runId));
    this.queue = new RunQueue({ ...options, lifecycle: this.lifecycle });
    this.workers = new RunWorkerEvents({
      ...options,
      active: () => this.active,
      adopt: () => this.adopt(),
      stopRun: (id, reason) => this.stopRun(id, reason),
    });
  }

  get activeRunId(): string | null {
    return this.active?.id ?? null;
  }

  start(): void {
    // A database that drops its connections mid-query (a failover, an admin's terminate) fails
    // one watch; the next second tries again. Nothing may escape as an unhandled rejection.
    this.timer = setInterval(() => {
      this.watch().catch((error: Error) =>
        this.options.log.warn({ err: error.message }, "run supervision failed this second; retrying"),
      );
    }, 1000);
  }

  /** At shutdown: timers off, and queued runs (which never started) failed with the reason. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.queue.abandon("the master stopped before the run's turn came");
  }

  /**
   * Validates and starts a run; throws VolleyError (400/409) before writing anything. With
   * `queue`, a run that cannot start now because another is active (or queued) waits its turn.
   */
  async create(input: unknown, extras: RunExtras = {}): Promise<{ id: string; status: string }> {
    const { scenario, inputs } = await prepareRun(
      this.options.db,
      input,
      extras,
      this.options.masterEnv ?? {},
    );
    if (this.active || this.creating || this.queue.size > 0) {
      if (extras.queue) {
        const queued = await this.queue.add({ input, scenario, inputs, startedBy: extras.startedBy });
        this.options.log.info({ runId: queued.id, position: this.queue.size }, "run queued");
        await this.publishStatus(queued.id);
        return { id: queued.id, status: "queued" };
      }
      throw new VolleyError("VOL_ERR_RUN_ACTIVE", this.busyMessage());
    }
    return this.launch({ input, scenario, inputs, startedBy: extras.startedBy });
  }

  private busyMessage(): string {
    return busyMessage(
      this.active && { id: this.active.id, name: this.active.scenario.name },
      this.queue.size,
    );
  }

  /** Plans the run over the workers ready now and starts it; throws 409 when there are none. */
  private async launch(
    run: Omit<QueuedRun, "id"> & { queuedId?: string },
  ): Promise<{ id: string; status: string }> {
    this.creating = true;
    try {
      const { active, launched, packedFiles } = await openRun(this.options, run);
      this.active = active;
      this.lastRenewal = Date.now();
      const live = await this.options.ingest.liveAggregators();
      active.routes = sendSlices(this.options.registry, launched, run.inputs, packedFiles, live);
      this.options.log.info(
        { runId: active.id, workers: launched.plan.length, startAt: active.startAt },
        "run started",
      );
      await this.publishStatus(active.id);
      return { id: active.id, status: "running" };
    } finally {
      this.creating = false;
    }
  }

  /** The next queued run, once no run is active: started, or failed when no worker is ready. */
  private async startQueued(): Promise<void> {
    const next = this.queue.next();
    if (!next) return;
    try {
      await this.launch({ ...next, queuedId: next.id });
    } catch (error) {
      const message = error instanceof VolleyError ? error.message : (error as Error).message;
      this.options.log.error({ runId: next.id, err: message }, "the queued run could not start");
      await this.lifecycle
        .apply({ id: next.id, status: "queued" }, "fail", { error: `could not start: ${message}` })
        .catch(() => undefined);
    }
  }

  /**
   * Graceful stop; the run ends once the workers' final batches are merged. A queued run is
   * taken out of line instead (`aborted`, reason `cancelled`). Returns the run's new status.
   */
  async stopRun(id: string, reason: StopReason = "user", by?: string): Promise<string> {
    const run = await this.options.db.runs.get(id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${id}`);
    if (await this.queue.cancel(id, by)) {
      this.options.log.info({ runId: id }, "queued run cancelled");
      return "aborted";
    }
    if (!this.active || this.active.id !== id) {
      const elsewhere = isActiveRunStatus(run.status) && run.owner;
      throw new VolleyError(
        "VOL_ERR_RUN_NOT_ACTIVE",
        elsewhere
          ? `run ${id} is ${run.status} on another master (${run.owner}); stop it there`
          : `run ${id} is ${run.status}; only an active run can be stopped`,
      );
    }
    this.active.stopReason ??= reason;
    const active = this.active;
    const status = await this.lifecycle.apply(run, "stop", {
      stopReason: active.stopReason,
      ...(by !== undefined ? { stoppedBy: by } : {}),
    });
    sendStop(active, this.options.registry);
    return status;
  }

  /**
   * Takes over runs left active by a master that stopped: at start, then every few seconds while
   * this master is free. A run whose owner still renews its lease is never touched; one that never
   * started is failed. Runs are taken one at a time, like runs are created.
   */
  adopt(): Promise<void> {
    this.adopting ??= this.adoptOrphans().finally(() => {
      this.adopting = null;
    });
    return this.adopting;
  }

  private async adoptOrphans(): Promise<void> {
    this.lastAdoption = Date.now();
    // A queued run being started is out of the queue and not active yet: it is no orphan.
    if (this.creating) return;
    const mine = [...(this.active ? [this.active.id] : []), ...this.queue.ids()];
    for (const run of await orphanedRuns(this.options.db, this.options.lease, mine)) {
      if (this.active || this.creating) continue;
      const taken = await takeOver(run, this.options);
      if (!taken) continue;
      if (this.active) {
        await this.options.ingest.close(run.id, false);
        continue;
      }
      this.active = taken;
      this.lastRenewal = Date.now();
    }
  }

  /** Called by the pipeline once every worker finished and every batch is merged. */
  async runComplete(runId: string): Promise<void> {
    const active = this.active?.id === runId ? this.active : null;
    if (!active || active.finishing) return;
    active.finishing = true;
    if (await batchesStillQueued(active, this.options.ingest)) {
      active.finishing = false;
      this.options.pipeline.recheck(runId);
      return;
    }
    // No batch may be merged once the final figures are computed: stop consuming first.
    await this.options.ingest.close(runId, false);
    let ended: boolean;
    try {
      ended = await finalizeRun({ ...this.options, lifecycle: this.lifecycle }, runId, active);
    } catch (error) {
      this.options.log.error({ err: error, runId }, "could not finalize the run");
      if (this.active === active) {
        active.finishing = false;
        this.options.ingest.open(runId);
      }
      return;
    }
    // Free before anything else is awaited: a run posted as soon as this one reads as ended is taken.
    this.active = null;
    if (active.scripts) void runTeardowns(active.scripts, runId, this.options.log);
    await this.options.ingest.close(runId, true);
    if (ended) await this.lifecycle.published(runId);
    if (ended && this.options.onRunEnded) {
      const report = await this.detail(runId).catch(() => null);
      if (report) this.options.onRunEnded(report);
    }
    if (!this.active && !this.creating) await this.startQueued();
  }

  /** Another master took the run over (this one could not renew its lease in time): let it go. */
  private async runLost(active: ActiveRun): Promise<void> {
    if (this.active !== active) return;
    this.active = null;
    this.options.log.error(
      { runId: active.id },
      "another master took the run over (its lease ran out); this master stops following it",
    );
    await this.options.ingest.close(active.id, false);
    this.options.pipeline.drop(active.id);
  }

  /** Once a second: workers gone too long are lost; a run past its deadline is stopped, then given up. */
  private async watch(): Promise<void> {
    const active = this.active;
    const now = Date.now();
    const blind = this.gap.tick(now);
    if (active && blind > 0) {
      creditStall(active, blind);
      this.options.log.warn(
        { runId: active.id, stalledMs: blind },
        "this master's event loop stalled: silence during the stall is not held against the workers",
      );
    }
    if (now - this.lastRenewal >= this.options.lease.renewEveryMs && this.queue.size > 0) {
      await this.queue.renew(now);
      if (!active) this.lastRenewal = now;
    }
    if (!active) {
      if (this.queue.size > 0 && !this.creating) await this.startQueued();
      else if (now - this.lastAdoption >= this.options.lease.renewEveryMs) await this.adopt();
      return;
    }
    if (now - this.lastRenewal >= this.options.lease.renewEveryMs) {
      const held = await this.options.lease.renew(active.id, now).catch((error: Error) => {
        this.options.log.warn({ err: error.message, runId: active.id }, "could not renew the run's lease");
        return true;
      });
      if (!held) return this.runLost(active);
      this.lastRenewal = now;
    }
    if (active.finishing) return;
    await superviseRun(
      active,
      {
        ...this.options,
        stopRun: (id, reason) => this.stopRun(id, reason),
        liveAggregators: this.liveAggregators,
        drainPartition: (partition, runId) => this.options.ingest.drainPartition(partition, runId),
      },
      now,
    );
  }

  /** `PATCH /api/runs/:id/load` on the active run (see `changeRunLoad`). */
  async changeLoad(id: string, patch: LoadPatch, by?: string): Promise<LoadChangeRecord[]> {
    return changeRunLoad(await this.runningRun(id), patch, this.options, Date.now(), by);
  }

  /** `POST /api/runs/:id/rebalance` on the active run (see `addWorkersToRun`). */
  async rebalance(id: string, by?: string): Promise<LoadChangeRecord[]> {
    return addWorkersToRun(
      await this.runningRun(id),
      { ...this.options, liveAggregators: this.liveAggregators },
      Date.now(),
      by,
    );
  }

  /** The active run by id, or 404/409. */
  private async runningRun(id: string): Promise<ActiveRun> {
    const active = this.active;
    if (active && active.id === id && !active.stopReason && !active.finishing) return active;
    const run = await this.options.db.runs.get(id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${id}`);
    throw new VolleyError(
      "VOL_ERR_RUN_NOT_ACTIVE",
      `run ${id} is ${run.status === "running" ? "stopping" : run.status}; only a running run's load can be changed`,
    );
  }

  /** A run's report: from the live aggregator while it runs, from the database after. */
  detail(runId: string): Promise<RunDetail | null> {
    return runDetail(this.options.db, runId, this.active?.id === runId ? this.active : null);
  }

  /** A run's report and the merged histograms it was made from, read once (null for an unknown run). */
  detailAndStats(runId: string): Promise<{ detail: RunDetail; stats: StatsAggregate } | null> {
    return runDetailAndStats(this.options.db, runId, this.active?.id === runId ? this.active : null);
  }

  /** A run's merged histograms (null for an unknown run). */
  stats(runId: string): Promise<StatsAggregate | null> {
    return runStats(this.options.db, runId, this.active?.id === runId ? this.active : null);
  }

  private async publishStatus(runId: string): Promise<void> {
    const run = await this.options.db.runs.get(runId);
    if (run) this.options.publish({ type: "run-status", run: toListItem(run) });
  }
}
