import { type Database, databaseMessage, RunNotOwnedError } from "@volley/db";
import { type LiveSecond, recordedStatsNames } from "@volley/protocol";
import type { Logger } from "pino";
import { runColumns } from "../runs/run-columns.js";
import { maxBatchSecond } from "./batch-check.js";
import { cumulativeFromRows, parseMergeState, workerFromState } from "./merge-state.js";
import { type Checkpoint, RunAggregator } from "./run-aggregator.js";

export interface StatsPipelineOptions {
  db: Database;
  /** This master's instance id: a checkpoint commits only while the master owns the run. */
  owner: string;
  log: Logger;
  /** Each merged second of a run, for the live feed. */
  onSecond: (second: LiveSecond) => void;
  /** A run whose workers all finished (or were lost) and whose seconds are all merged. */
  onRunComplete: (runId: string) => void;
  /** Longest a merged batch waits for its checkpoint (and its acknowledgement). @defaultValue 500 */
  checkpointIntervalMs?: number;
  /** @defaultValue 5000 */
  lateMs?: number;
}

const TICK_MS = 100;

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The master's side of the stats path: one RunAggregator per run with batches in flight, seconds
 * closed as they complete, checkpoints written about twice a second. Each batch's queue job is
 * released (`durable`) once a checkpoint that includes the batch has committed.
 */
export class StatsPipeline {
  private readonly aggregators = new Map<string, RunAggregator>();
  private readonly loading = new Map<string, Promise<RunAggregator | null>>();
  private readonly checkpointing = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly completed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private lastCheckpoint = 0;
  /** Checkpoints written, for /metrics. */
  checkpoints = 0;
  /** Set while checkpoints fail (health says `degraded`), cleared by the next that commits. */
  checkpointFailure: { since: number; error: string; attempts: number } | null = null;

  constructor(private readonly options: StatsPipelineOptions) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flushAll();
  }

  /** A run that has just started. */
  register(aggregator: RunAggregator): void {
    this.aggregators.set(aggregator.runId, aggregator);
    this.completed.delete(aggregator.runId);
  }

  active(runId: string): RunAggregator | undefined {
    return this.aggregators.get(runId);
  }

  /** The run's aggregator, rebuilt from the database when it is not in memory; null for an unknown run. */
  get(runId: string): Promise<RunAggregator | null> {
    const inMemory = this.aggregators.get(runId);
    if (inMemory) return Promise.resolve(inMemory);
    let loading = this.loading.get(runId);
    if (!loading) {
      loading = this.load(runId).finally(() => this.loading.delete(runId));
      this.loading.set(runId, loading);
    }
    return loading;
  }

  /** Resolves once everything merged so far for the run is committed. */
  durable(runId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let list = this.waiting.get(runId);
      if (!list) {
        list = [];
        this.waiting.set(runId, list);
      }
      list.push({ resolve, reject });
    });
  }

  /** Writes whatever is pending for every run (before a summary is read, or at shutdown). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.aggregators.values()].map((a) => this.checkpoint(a)));
  }

  async flush(runId: string): Promise<void> {
    const aggregator = this.aggregators.get(runId);
    if (aggregator) await this.checkpoint(aggregator);
  }

  /** Asks again whether a run is complete (its completion was put off). */
  recheck(runId: string): void {
    this.completed.delete(runId);
  }

  /** Drops a finished run from memory. */
  forget(runId: string): void {
    if (!this.waiting.get(runId)?.length) this.aggregators.delete(runId);
  }

  /**
   * Drops a run another master took over, unwritten: the batches waiting for its checkpoint are
   * refused, so their jobs go back to the queue for the new owner.
   */
  drop(runId: string): void {
    this.aggregators.delete(runId);
    const waiters = this.waiting.get(runId) ?? [];
    this.waiting.delete(runId);
    const error = new Error(`run ${runId} belongs to another master now`);
    for (const waiter of waiters) waiter.reject(error);
  }

  private tick(): void {
    const now = Date.now();
    for (const aggregator of this.aggregators.values()) {
      for (const second of aggregator.closeReady(now)) this.options.onSecond(second);
      if (aggregator.isComplete && !this.completed.has(aggregator.runId)) {
        this.completed.add(aggregator.runId);
        this.options.onRunComplete(aggregator.runId);
      }
    }
    if (now - this.lastCheckpoint >= (this.options.checkpointIntervalMs ?? 500)) {
      this.lastCheckpoint = now;
      for (const aggregator of this.aggregators.values()) void this.checkpoint(aggregator);
    }
  }

  private checkpoint(aggregator: RunAggregator): Promise<void> {
    const { runId } = aggregator;
    const running = this.checkpointing.get(runId);
    if (running) return running.then(() => this.checkpoint(aggregator));
    const checkpoint = aggregator.takeCheckpoint();
    const waiters = this.waiting.get(runId) ?? [];
    this.waiting.delete(runId);
    if (!checkpoint) {
      // Nothing new since the last commit: whatever waits is durable already.
      for (const waiter of waiters) waiter.resolve();
      return Promise.resolve();
    }
    const writing = this.write(checkpoint)
      .then(() => {
        this.checkpoints++;
        if (this.checkpointFailure) {
          this.options.log.info({ failed: this.checkpointFailure.attempts }, "checkpoints commit again");
          this.checkpointFailure = null;
        }
        for (const waiter of waiters) waiter.resolve();
      })
      .catch((error) => {
        aggregator.restore(checkpoint);
        this.waiting.set(runId, [...waiters, ...(this.waiting.get(runId) ?? [])]);
        if (error instanceof RunNotOwnedError) {
          this.options.log.error({ runId }, "checkpoint refused: another master owns the run now");
          this.drop(runId);
          return;
        }
        const message = databaseMessage(error);
        this.checkpointFailure ??= { since: Date.now(), error: message, attempts: 0 };
        this.checkpointFailure.error = message;
        // One line per failure, not a stack: a locked or read-only database fails twice a second.
        if (this.checkpointFailure.attempts++ % 20 === 0) {
          this.options.log.error(
            { err: message, runId, failed: this.checkpointFailure.attempts },
            "checkpoint failed; will retry",
          );
        }
      })
      .finally(() => this.checkpointing.delete(runId));
    this.checkpointing.set(runId, writing);
    return writing;
  }

  private async write(checkpoint: Checkpoint): Promise<void> {
    const { runId } = checkpoint;
    await this.options.db.transaction(async (tx) => {
      await tx.seconds.insertMany(checkpoint.seconds);
      for (const late of checkpoint.late) await tx.seconds.addLate({ runId, ...late });
      await tx.aggregates.replace(runId, checkpoint.aggregates);
      await tx.runs.updateOwned(runId, this.options.owner, checkpoint.run);
    });
  }

  /** Rebuilds a run's aggregator from its last checkpoint. */
  private async load(runId: string): Promise<RunAggregator | null> {
    const { db } = this.options;
    const run = await db.runs.get(runId);
    if (!run) return null;
    const scenario = runColumns.scenario(run);
    const cumulative = cumulativeFromRows(run, await db.aggregates.list(runId));
    const state = parseMergeState(run.mergeState);
    const workers = (await db.runWorkers.list(runId)).map((w) =>
      workerFromState(
        w.workerId,
        w.name,
        state.workers[w.workerId] ?? {
          below: w.mergedBelow,
          above: JSON.parse(w.mergedAbove) as number[],
          requests: w.requests,
          lostBatches: w.lostBatches,
          finalSeq: w.finalSeq,
          finalElapsedMs: w.finalElapsedMs,
          lost: w.status === "lost" || w.status === "failed",
        },
      ),
    );
    const aggregator = new RunAggregator({
      runId,
      startAt: run.startAt,
      requestOrder: recordedStatsNames(scenario),
      maxSecond: maxBatchSecond(scenario),
      workers,
      closedThrough: run.closedThrough,
      cumulative,
      open: state.open,
      lateMs: this.options.lateMs,
      scenario,
    });
    this.aggregators.set(runId, aggregator);
    this.options.log.info(
      { runId, closedThrough: run.closedThrough },
      "run statistics loaded from the last checkpoint",
    );
    return aggregator;
  }
}
