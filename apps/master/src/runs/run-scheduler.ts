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
import { RunLifecycle, type StopReason } from "./run-lifecycle.js";
import { addWorkersToRun, changeRunLoad } from "./run-load.js";
import { RunQueue } from "./run-queue.js";
import { runTeardowns } from "./run-scripts.js";
import { RunStarts } from "./run-starts.js";
import { sendStop, superviseRun } from "./run-supervision.js";
import { toListItem } from "./run-views.js";
import { RunWorkerEvents } from "./run-worker-events.js";
import type { RunSchedulerOptions } from "./scheduler-options.js";

export type { RunIngest, RunSchedulerOptions } from "./scheduler-options.js";

/**
 * Runs from creation to report: plans and starts them across workers, follows their workers,
 * stops them, and writes the final status once every batch is merged. Runs on workers that do not
 * overlap run at the same time; a run whose workers are held waits in the queue for them only
 * (run-starts.ts, run-admission.ts). Launches and takeovers happen one at a time, each seeing the
 * workers the one before took.
 */
export class RunScheduler {
  /** The runs in progress on this master, by id. */
  private readonly runs = new Map<string, ActiveRun>();
  /** When each run's lease was last renewed. */
  private readonly renewedAt = new Map<string, number>();
  private readonly queue: RunQueue;
  /** Every move of a run's status after it was written (see run-lifecycle.ts). */
  private readonly lifecycle: RunLifecycle;
  private readonly starts: RunStarts;
  private adopting: Promise<void> | null = null;
  /** A watch under way: the next second's is skipped rather than run beside it. */
  private watching = false;
  private timer: NodeJS.Timeout | null = null;
  private lastQueueRenewal = 0;
  private lastAdoption = 0;
  private readonly gap = new LoopGap(1000);

  private readonly liveAggregators = () => this.options.ingest.liveAggregators();
  /** What the workers' messages mean for the runs in progress. */
  readonly workers: RunWorkerEvents;

  constructor(private readonly options: RunSchedulerOptions) {
    this.lifecycle = new RunLifecycle(options.db.runs, (runId) => this.publishStatus(runId));
    this.queue = new RunQueue({ ...options, lifecycle: this.lifecycle });
    this.starts = new RunStarts({
      options,
      queue: this.queue,
      lifecycle: this.lifecycle,
      runs: this.runs,
      started: (active) => {
        this.runs.set(active.id, active);
        this.renewedAt.set(active.id, Date.now());
      },
      publishStatus: (runId) => this.publishStatus(runId),
    });
    this.workers = new RunWorkerEvents({
      ...options,
      run: (id) => this.runs.get(id),
      runs: () => [...this.runs.values()],
      adopt: () => this.adopt(),
      stopRun: (id, reason) => this.stopRun(id, reason),
    });
  }

  /** The runs in progress on this master, oldest first. */
  get activeRunIds(): string[] {
    return [...this.runs.keys()];
  }

  isActive(runId: string): boolean {
    return this.runs.has(runId);
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
   * `queue`, a run that cannot start now because its workers are held waits for them.
   */
  async create(input: unknown, extras: RunExtras = {}): Promise<{ id: string; status: string }> {
    const { scenario, inputs } = await prepareRun(
      this.options.db,
      input,
      extras,
      this.options.masterEnv ?? {},
    );
    return this.starts.create(
      { input, scenario, inputs, startedBy: extras.startedBy },
      extras.queue === true,
    );
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
    const active = this.runs.get(id);
    if (!active) {
      const elsewhere = isActiveRunStatus(run.status) && run.owner;
      throw new VolleyError(
        "VOL_ERR_RUN_NOT_ACTIVE",
        elsewhere
          ? `run ${id} is ${run.status} on another master (${run.owner}); stop it there`
          : `run ${id} is ${run.status}; only an active run can be stopped`,
      );
    }
    active.stopReason ??= reason;
    const status = await this.lifecycle.apply(run, "stop", {
      stopReason: active.stopReason,
      ...(by !== undefined ? { stoppedBy: by } : {}),
    });
    sendStop(active, this.options.registry);
    return status;
  }

  /**
   * Takes over runs left active by a master that stopped: at start, then every few seconds. A run
   * whose owner still renews its lease is never touched; one that never started is failed.
   */
  adopt(): Promise<void> {
    this.adopting ??= this.starts
      .exclusive(() => this.adoptOrphans())
      .finally(() => {
        this.adopting = null;
      });
    return this.adopting;
  }

  private async adoptOrphans(): Promise<void> {
    this.lastAdoption = Date.now();
    const mine = [...this.runs.keys(), ...this.queue.ids()];
    for (const run of await orphanedRuns(this.options.db, this.options.lease, mine)) {
      const taken = await takeOver(run, this.options);
      if (!taken) continue;
      this.runs.set(taken.id, taken);
      this.renewedAt.set(taken.id, Date.now());
    }
  }

  /** Called by the pipeline once every worker finished and every batch is merged. */
  async runComplete(runId: string): Promise<void> {
    const active = this.runs.get(runId);
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
      if (this.runs.get(runId) === active) {
        active.finishing = false;
        this.options.ingest.open(runId);
      }
      return;
    }
    // Free before anything else is awaited: a run posted as soon as this one reads as ended is taken.
    this.runs.delete(runId);
    this.renewedAt.delete(runId);
    if (active.scripts) void runTeardowns(active.scripts, runId, this.options.log);
    await this.options.ingest.close(runId, true);
    if (ended) await this.lifecycle.published(runId);
    if (ended && this.options.onRunEnded) {
      const report = await this.detail(runId).catch(() => null);
      if (report) this.options.onRunEnded(report);
    }
    if (this.queue.size > 0) await this.starts.startQueued();
  }

  /** Another master took the run over (this one could not renew its lease in time): let it go. */
  private async runLost(active: ActiveRun): Promise<void> {
    if (this.runs.get(active.id) !== active) return;
    this.runs.delete(active.id);
    this.renewedAt.delete(active.id);
    this.options.log.error(
      { runId: active.id },
      "another master took the run over (its lease ran out); this master stops following it",
    );
    await this.options.ingest.close(active.id, false);
    this.options.pipeline.drop(active.id);
  }

  /** Once a second, for each run: workers gone too long are lost; past its deadline it is stopped, then given up. */
  private async watch(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    try {
      await this.watchAll(Date.now());
    } finally {
      this.watching = false;
    }
  }

  private async watchAll(now: number): Promise<void> {
    const blind = this.gap.tick(now);
    const { renewEveryMs } = this.options.lease;
    if (blind > 0 && this.runs.size > 0) {
      for (const active of this.runs.values()) creditStall(active, blind);
      this.options.log.warn(
        { runs: this.activeRunIds, stalledMs: blind },
        "this master's event loop stalled: silence during the stall is not held against the workers",
      );
    }
    if (this.queue.size > 0 && now - this.lastQueueRenewal >= renewEveryMs) {
      await this.queue.renew(now);
      this.lastQueueRenewal = now;
    }
    for (const active of [...this.runs.values()]) {
      // One run's failure this second must not keep the others from being watched.
      await this.watchRun(active, now).catch((error: Error) =>
        this.options.log.warn({ err: error.message, runId: active.id }, "run supervision failed this second"),
      );
    }
    // Not awaited: a launch may wait for finishing workers, and the runs in progress are watched meanwhile.
    const log = (what: string) => (error: Error) => this.options.log.warn({ err: error.message }, what);
    if (this.queue.size > 0) void this.starts.startQueued().catch(log("queued runs could not be started"));
    if (now - this.lastAdoption >= renewEveryMs)
      void this.adopt().catch(log("orphaned runs could not be adopted"));
  }

  private async watchRun(active: ActiveRun, now: number): Promise<void> {
    if (now - (this.renewedAt.get(active.id) ?? 0) >= this.options.lease.renewEveryMs) {
      const held = await this.options.lease.renew(active.id, now).catch((error: Error) => {
        this.options.log.warn({ err: error.message, runId: active.id }, "could not renew the run's lease");
        return true;
      });
      if (!held) return this.runLost(active);
      this.renewedAt.set(active.id, now);
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
    const active = this.runs.get(id);
    if (active && !active.stopReason && !active.finishing) return active;
    const run = await this.options.db.runs.get(id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${id}`);
    throw new VolleyError(
      "VOL_ERR_RUN_NOT_ACTIVE",
      `run ${id} is ${run.status === "running" ? "stopping" : run.status}; only a running run's load can be changed`,
    );
  }

  /** A run's report: from the live aggregator while it runs, from the database after. */
  detail(runId: string): Promise<RunDetail | null> {
    return runDetail(this.options.db, runId, this.runs.get(runId) ?? null);
  }

  /** A run's report and the merged histograms it was made from, read once (null for an unknown run). */
  detailAndStats(runId: string): Promise<{ detail: RunDetail; stats: StatsAggregate } | null> {
    return runDetailAndStats(this.options.db, runId, this.runs.get(runId) ?? null);
  }

  /** A run's merged histograms (null for an unknown run). */
  stats(runId: string): Promise<StatsAggregate | null> {
    return runStats(this.options.db, runId, this.runs.get(runId) ?? null);
  }

  private async publishStatus(runId: string): Promise<void> {
    const run = await this.options.db.runs.get(runId);
    if (run) this.options.publish({ type: "run-status", run: toListItem(run) });
  }
}
