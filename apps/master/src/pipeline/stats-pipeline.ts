import type { Database } from "@volley/db";
import {
  type LiveSecond,
  parseScenario,
  type RequestStats,
  requestName,
  type StatsBatch,
  statsBatchSchema,
} from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import type { Logger } from "pino";
import { type Checkpoint, RunAggregator } from "./run-aggregator.js";
import { SeqSet } from "./seq-set.js";

export interface StatsPipelineOptions {
  db: Database;
  log: Logger;
  /** Each merged second of a run, for the live feed. */
  onSecond: (second: LiveSecond) => void;
  /** A run whose workers all finished (or were lost) and whose seconds are all merged. */
  onRunComplete: (runId: string) => void;
  /** @defaultValue 1000 */
  checkpointIntervalMs?: number;
  /** @defaultValue 5000 */
  lateMs?: number;
}

const TICK_MS = 100;

/**
 * The master's side of the stats path after storage: one RunAggregator per run with batches in
 * flight, seconds closed as they complete, checkpoints written once a second.
 */
export class StatsPipeline {
  private readonly aggregators = new Map<string, RunAggregator>();
  private readonly loading = new Map<string, Promise<RunAggregator | null>>();
  private readonly checkpointing = new Map<string, Promise<void>>();
  private readonly completed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private lastCheckpoint = 0;
  /** Checkpoints written, for /metrics. */
  checkpoints = 0;

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

  /** The run's aggregator, loaded from the database when it is not in memory; null for an unknown run. */
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

  /** Writes whatever is pending for every run (before a summary is read, or at shutdown). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.aggregators.values()].map((a) => this.checkpoint(a)));
  }

  async flush(runId: string): Promise<void> {
    const aggregator = this.aggregators.get(runId);
    if (aggregator) await this.checkpoint(aggregator);
  }

  /** Drops a finished run from memory (it is loaded again if a late batch comes). */
  forget(runId: string): void {
    this.aggregators.delete(runId);
  }

  pendingCheckpoints(): number {
    return this.checkpointing.size;
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
    if (now - this.lastCheckpoint >= (this.options.checkpointIntervalMs ?? 1000)) {
      this.lastCheckpoint = now;
      for (const aggregator of this.aggregators.values()) void this.checkpoint(aggregator);
    }
  }

  private checkpoint(aggregator: RunAggregator): Promise<void> {
    const running = this.checkpointing.get(aggregator.runId);
    if (running) return running.then(() => this.checkpoint(aggregator));
    const checkpoint = aggregator.takeCheckpoint();
    if (!checkpoint) return Promise.resolve();
    const writing = this.write(checkpoint)
      .then(() => {
        this.checkpoints++;
      })
      .catch((error) => {
        aggregator.restore(checkpoint);
        this.options.log.error({ err: error, runId: aggregator.runId }, "checkpoint failed; will retry");
      })
      .finally(() => this.checkpointing.delete(aggregator.runId));
    this.checkpointing.set(aggregator.runId, writing);
    return writing;
  }

  private async write(checkpoint: Checkpoint): Promise<void> {
    const { runId } = checkpoint;
    await this.options.db.transaction(async (tx) => {
      await tx.seconds.insertMany(checkpoint.seconds);
      for (const late of checkpoint.late) await tx.seconds.addLate({ runId, ...late });
      for (const row of checkpoint.aggregates) await tx.aggregates.upsert(row);
      for (const { workerId, update } of checkpoint.workers)
        await tx.runWorkers.update(runId, workerId, update);
      for (const { workerId, seqs } of checkpoint.deletions)
        await tx.batches.deleteMerged(runId, workerId, seqs);
      await tx.runs.update(runId, checkpoint.run);
    });
  }

  /** Rebuilds a run's aggregator from its checkpoint and its stored, unmerged batches. */
  private async load(runId: string): Promise<RunAggregator | null> {
    const { db } = this.options;
    const run = await db.runs.get(runId);
    if (!run) return null;
    const scenario = parseScenario(JSON.parse(run.scenario));
    const cumulative = new StatsAggregate();
    const rows = await db.aggregates.list(runId);
    cumulative.add(
      rows.map((row) => JSON.parse(row.stats) as RequestStats),
      run.dropped,
    );
    const workers = (await db.runWorkers.list(runId)).map((w) => {
      const merged = new SeqSet(w.mergedBelow, JSON.parse(w.mergedAbove) as number[]);
      return {
        workerId: w.workerId,
        name: w.name,
        merged,
        received: new SeqSet(w.mergedBelow, JSON.parse(w.mergedAbove) as number[]),
        finalSeq: w.finalSeq,
        finalElapsedMs: w.finalElapsedMs,
        lost: w.status === "lost" || w.status === "failed",
        requests: w.requests,
        lostBatches: w.lostBatches,
      };
    });
    const aggregator = new RunAggregator({
      runId,
      startAt: run.startAt,
      requestOrder: scenario.requests.map(requestName),
      workers,
      closedThrough: run.closedThrough,
      cumulative,
      lateMs: this.options.lateMs,
    });
    for (const row of await db.batches.listForRun(runId)) {
      aggregator.accept(statsBatchSchema.parse(JSON.parse(row.payload)) as StatsBatch);
    }
    this.aggregators.set(runId, aggregator);
    this.options.log.info(
      { runId, pending: aggregator.workerList().length },
      "run statistics loaded from the database",
    );
    return aggregator;
  }
}
