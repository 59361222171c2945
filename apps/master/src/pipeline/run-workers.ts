import type { RunWorkerUpdate } from "@volley/db";
import type { CombinedBatch, CoveredBatch, StatsBatch } from "@volley/protocol";
import {
  type AggregatorWorker,
  isWorkerDone,
  newWorker,
  type WorkerMergeState,
  workerStatus,
  workerToState,
} from "./merge-state.js";

/**
 * The workers' progress in one run: which batches of each were merged (the dedupe sets), what
 * they counted, whether they finished or were lost. The run's aggregator asks it whether a batch
 * is new and tells it what each merged batch covered.
 */
export class RunWorkers {
  private readonly workers = new Map<string, AggregatorWorker>();

  constructor(workers: readonly AggregatorWorker[]) {
    for (const worker of workers) this.workers.set(worker.workerId, worker);
  }

  list(): AggregatorWorker[] {
    return [...this.workers.values()];
  }

  get(workerId: string): AggregatorWorker | undefined {
    return this.workers.get(workerId);
  }

  /** Adds a worker that joined while the run goes; false when it has a part already. */
  add(workerId: string, name: string): boolean {
    if (this.workers.has(workerId)) return false;
    this.workers.set(workerId, newWorker(workerId, name));
    return true;
  }

  /** True when the batch was merged before (a redelivery). */
  isDuplicate(batch: Pick<StatsBatch, "workerId" | "seq">): boolean {
    return this.workers.get(batch.workerId)?.received.has(batch.seq) ?? false;
  }

  /** Whether an aggregator's group was merged before: none of it, all of it, or (never sent) part. */
  combinedState(batch: CombinedBatch): "new" | "duplicate" | "overlap" {
    let merged = 0;
    for (const c of batch.covers) if (this.workers.get(c.workerId)?.received.has(c.seq)) merged++;
    return merged === 0 ? "new" : merged === batch.covers.length ? "duplicate" : "overlap";
  }

  /** A merged batch's (or a covered batch's) part in its worker's progress. */
  cover(worker: AggregatorWorker, batch: CoveredBatch): void {
    worker.received.add(batch.seq);
    worker.lostBatches += batch.lostBatches;
    worker.requests += batch.requests;
    if (batch.final) {
      worker.finalSeq = batch.seq;
      worker.finalElapsedMs = batch.elapsedMs;
    }
    // Lost says some of its figures may be missing; once its final batch and every one before it
    // are merged (a worker cut off from a restarting master whose batches waited in the queue),
    // nothing is, and it finished.
    if (worker.lost && isWorkerDone(worker)) worker.lost = false;
  }

  /**
   * Marks a worker lost (or found again); true when that changed anything. A worker whose every
   * batch was merged is never lost.
   */
  markLost(workerId: string, lost: boolean): boolean {
    const worker = this.workers.get(workerId);
    if (!worker || worker.lost === lost || (lost && isWorkerDone(worker))) return false;
    worker.lost = lost;
    return true;
  }

  /** Workers still expected to send batches: neither lost nor finished. */
  running(): AggregatorWorker[] {
    return this.list().filter((w) => !w.lost && !isWorkerDone(w));
  }

  /** The checkpoint's view of every worker's progress. */
  state(): Record<string, WorkerMergeState> {
    return Object.fromEntries(this.list().map((w) => [w.workerId, workerToState(w)]));
  }

  /** The RunWorker rows' final figures (written once, when the run ends). */
  updates(): Array<{ workerId: string; update: RunWorkerUpdate }> {
    return this.list().map((w) => {
      const received = w.received.toJSON();
      return {
        workerId: w.workerId,
        update: {
          mergedBelow: received.below,
          mergedAbove: JSON.stringify(received.above),
          requests: w.requests,
          lostBatches: w.lostBatches,
          finalSeq: w.finalSeq,
          finalElapsedMs: w.finalElapsedMs,
          status: workerStatus(w),
        },
      };
    });
  }
}
