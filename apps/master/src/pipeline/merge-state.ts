import type { RunAggregateRow, RunRow } from "@volley/db";
import { type RequestStats, withSlowestText } from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import { SeqSet } from "./seq-set.js";

/** A worker's progress in a run, as the aggregator keeps it. */
export interface AggregatorWorker {
  workerId: string;
  name: string;
  /** Batches merged (into an open second or the totals): the dedupe set. */
  received: SeqSet;
  finalSeq: number | null;
  finalElapsedMs: number | null;
  lost: boolean;
  requests: number;
  lostBatches: number;
}

/** A worker's progress as a checkpoint stores it. */
export interface WorkerMergeState {
  below: number;
  above: number[];
  requests: number;
  lostBatches: number;
  finalSeq: number | null;
  finalElapsedMs: number | null;
  lost: boolean;
}

/** A second not closed yet: what the workers sent for it so far, merged. */
export interface OpenSecondState {
  second: number;
  vus: number;
  dropped: number;
  requests: RequestStats[];
}

/**
 * What `Run.mergeState` holds: with the closed seconds and the cumulative aggregates, everything
 * needed to rebuild the aggregator after a crash, written in the checkpoint's single run update.
 */
export interface MergeState {
  workers: Record<string, WorkerMergeState>;
  open: OpenSecondState[];
}

export function newWorker(workerId: string, name: string): AggregatorWorker {
  return {
    workerId,
    name,
    received: new SeqSet(),
    finalSeq: null,
    finalElapsedMs: null,
    lost: false,
    requests: 0,
    lostBatches: 0,
  };
}

export function workerToState(worker: AggregatorWorker): WorkerMergeState {
  const received = worker.received.toJSON();
  return {
    below: received.below,
    above: received.above,
    requests: worker.requests,
    lostBatches: worker.lostBatches,
    finalSeq: worker.finalSeq,
    finalElapsedMs: worker.finalElapsedMs,
    lost: worker.lost,
  };
}

export function workerFromState(workerId: string, name: string, state: WorkerMergeState): AggregatorWorker {
  return {
    workerId,
    name,
    received: new SeqSet(state.below, state.above),
    finalSeq: state.finalSeq,
    finalElapsedMs: state.finalElapsedMs,
    lost: state.lost,
    requests: state.requests,
    lostBatches: state.lostBatches,
  };
}

export function parseMergeState(text: string): MergeState {
  const parsed = JSON.parse(text) as Partial<MergeState>;
  const open = parsed.open ?? [];
  for (const second of open) second.requests.forEach(withSlowestText);
  return { workers: parsed.workers ?? {}, open };
}

/** A run's merged totals as its last checkpoint stored them (one aggregate row per request name). */
export function cumulativeFromRows(run: Pick<RunRow, "dropped">, rows: RunAggregateRow[]): StatsAggregate {
  const cumulative = new StatsAggregate();
  cumulative.add(
    rows.map((row) => withSlowestText(JSON.parse(row.stats) as RequestStats)),
    run.dropped,
  );
  return cumulative;
}

export function workerStatus(worker: AggregatorWorker): "lost" | "finished" | "running" {
  return worker.lost ? "lost" : isWorkerDone(worker) ? "finished" : "running";
}

/** The worker's final batch and every one before it are merged. */
export function isWorkerDone(worker: AggregatorWorker): boolean {
  return worker.finalSeq !== null && worker.received.contiguousBelow > worker.finalSeq;
}
