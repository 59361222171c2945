import type { RunAggregateRow, RunSecondRow, RunUpdate, RunWorkerUpdate } from "@volley/db";
import type { LiveSecond, RunSummary, StatsBatch, TimeseriesPoint } from "@volley/protocol";
import { type RequestAggregate, StatsAggregate } from "@volley/stats";
import type { SeqSet } from "./seq-set.js";

/** How long after a second ends the master waits for slow workers before closing it anyway. */
export const DEFAULT_LATE_MS = 5000;

export interface AggregatorWorker {
  workerId: string;
  name: string;
  /** Batches stored (merged or waiting): the dedupe set. */
  received: SeqSet;
  /** Batches merged into the cumulative figures and deleted from storage. */
  merged: SeqSet;
  finalSeq: number | null;
  finalElapsedMs: number | null;
  lost: boolean;
  requests: number;
  lostBatches: number;
}

interface OpenSecond {
  stats: StatsAggregate;
  vus: number;
  batches: Array<{ workerId: string; seq: number; requests: number }>;
}

interface LateCounts {
  name: string;
  second: number;
  requests: number;
  failures: number;
}

/** Everything one checkpoint writes, in one transaction. */
export interface Checkpoint {
  runId: string;
  seconds: RunSecondRow[];
  late: LateCounts[];
  aggregates: RunAggregateRow[];
  workers: Array<{ workerId: string; update: RunWorkerUpdate }>;
  deletions: Array<{ workerId: string; seqs: number[] }>;
  run: RunUpdate;
}

export interface RunAggregatorInit {
  runId: string;
  /** Scheduled start (master clock, epoch ms); null while unknown. */
  startAt: number | null;
  requestOrder: string[];
  workers: AggregatorWorker[];
  closedThrough?: number;
  cumulative?: StatsAggregate;
  lateMs?: number;
}

/**
 * Merges one run's batches: per second across workers (closed once every live worker reported
 * it, or after a grace period), then into the run's cumulative figures. State leaves memory only
 * through checkpoints that write the merged figures and delete the merged batches together, so
 * a batch counts exactly once across crashes and redeliveries.
 */
export class RunAggregator {
  readonly runId: string;
  startAt: number | null;
  closedThrough: number;
  readonly cumulative: StatsAggregate;
  private readonly workers = new Map<string, AggregatorWorker>();
  private readonly open = new Map<number, OpenSecond>();
  private readonly order: string[];
  private readonly lateMs: number;
  private highestSecond = -1;
  private pendingSeconds: RunSecondRow[] = [];
  private pendingLate = new Map<string, LateCounts>();
  private pendingDeletions = new Map<string, number[]>();
  private dirty = false;

  constructor(init: RunAggregatorInit) {
    this.runId = init.runId;
    this.startAt = init.startAt;
    this.order = init.requestOrder;
    this.closedThrough = init.closedThrough ?? -1;
    this.highestSecond = this.closedThrough;
    this.cumulative = init.cumulative ?? new StatsAggregate();
    this.lateMs = init.lateMs ?? DEFAULT_LATE_MS;
    for (const worker of init.workers) this.workers.set(worker.workerId, worker);
  }

  workerList(): AggregatorWorker[] {
    return [...this.workers.values()];
  }

  hasWorker(workerId: string): boolean {
    return this.workers.has(workerId);
  }

  /** True when the batch is already stored or merged (a redelivery). */
  isDuplicate(batch: Pick<StatsBatch, "workerId" | "seq">): boolean {
    return this.workers.get(batch.workerId)?.received.has(batch.seq) ?? false;
  }

  /** Takes a batch that is durably stored. */
  accept(batch: StatsBatch): void {
    const worker = this.workers.get(batch.workerId);
    if (!worker || worker.received.has(batch.seq)) return;
    worker.received.add(batch.seq);
    worker.lostBatches += batch.lostBatches;
    if (batch.final) {
      worker.finalSeq = batch.seq;
      worker.finalElapsedMs = batch.elapsedMs;
    }
    this.highestSecond = Math.max(this.highestSecond, batch.second);
    this.dirty = true;
    if (batch.second <= this.closedThrough) {
      this.mergeLate(worker, batch);
      return;
    }
    let second = this.open.get(batch.second);
    if (!second) {
      second = { stats: new StatsAggregate(), vus: 0, batches: [] };
      this.open.set(batch.second, second);
    }
    second.stats.add(batch.requests, batch.dropped);
    second.vus += batch.vus;
    second.batches.push({ workerId: batch.workerId, seq: batch.seq, requests: countRequests(batch) });
  }

  markLost(workerId: string, lost = true): void {
    const worker = this.workers.get(workerId);
    if (worker && worker.lost !== lost) {
      worker.lost = lost;
      this.dirty = true;
    }
  }

  /** Closes every second that is ready; returns what the live view should show for each. */
  closeReady(now: number): LiveSecond[] {
    const closed: LiveSecond[] = [];
    while (this.startAt !== null) {
      const second = this.closedThrough + 1;
      const active = this.workerList().filter((w) => !w.lost && !isWorkerDone(w));
      if (active.length === 0 && second > this.highestSecond) break;
      const waiting = active.some((w) => w.received.contiguousBelow <= second);
      if (waiting && now < this.startAt + (second + 1) * 1000 + this.lateMs) break;
      closed.push(this.close(second));
    }
    return closed;
  }

  /** Every worker has finished or is lost, and every second is merged. */
  get isComplete(): boolean {
    return (
      this.workerList().every((w) => w.lost || isWorkerDone(w)) &&
      this.open.size === 0 &&
      this.closedThrough >= this.highestSecond
    );
  }

  /** Seconds of load: the longest slice once all finished, else the seconds merged so far. */
  durationS(): number {
    const finals = this.workerList().flatMap((w) => (w.finalElapsedMs === null ? [] : [w.finalElapsedMs]));
    const measured = finals.length ? Math.max(...finals) / 1000 : 0;
    return Math.max(measured, this.isComplete ? 0 : this.closedThrough + 1, 0.001);
  }

  summary(): RunSummary {
    return this.cumulative.summarize(this.durationS(), this.order);
  }

  /** What to persist now, or null when nothing changed. The state moves on; `restore` undoes it. */
  takeCheckpoint(): Checkpoint | null {
    if (!this.dirty) return null;
    this.dirty = false;
    const total = this.cumulative.total();
    const checkpoint: Checkpoint = {
      runId: this.runId,
      seconds: this.pendingSeconds,
      late: [...this.pendingLate.values()],
      aggregates: this.cumulative.list().map((a) => ({
        runId: this.runId,
        name: a.name,
        method: a.method,
        stats: JSON.stringify(a.toStats()),
        rank: rank(this.order, a.name),
      })),
      workers: this.workerList().map((w) => {
        const merged = w.merged.toJSON();
        return {
          workerId: w.workerId,
          update: {
            mergedBelow: merged.below,
            mergedAbove: JSON.stringify(merged.above),
            requests: w.requests,
            lostBatches: w.lostBatches,
            finalSeq: w.finalSeq !== null && w.merged.has(w.finalSeq) ? w.finalSeq : null,
            finalElapsedMs: w.finalElapsedMs,
            status: w.lost ? "lost" : isWorkerDone(w) ? "finished" : "running",
          },
        };
      }),
      deletions: [...this.pendingDeletions].map(([workerId, seqs]) => ({ workerId, seqs })),
      run: {
        closedThrough: this.closedThrough,
        requests: total.requests,
        failures: total.failures,
        dropped: this.cumulative.dropped,
        durationS: this.durationS(),
        rps: total.requests / this.durationS(),
        p95Ms: total.requests ? total.percentileUs(95) / 1000 : null,
      },
    };
    this.pendingSeconds = [];
    this.pendingLate = new Map();
    this.pendingDeletions = new Map();
    return checkpoint;
  }

  /** Puts back what a failed checkpoint did not write. */
  restore(checkpoint: Checkpoint): void {
    this.dirty = true;
    this.pendingSeconds.unshift(...checkpoint.seconds);
    for (const late of checkpoint.late)
      this.addLateCounts(late.name, late.second, late.requests, late.failures);
    for (const { workerId, seqs } of checkpoint.deletions) {
      this.pendingDeletions.set(workerId, [...seqs, ...(this.pendingDeletions.get(workerId) ?? [])]);
    }
  }

  private close(second: number): LiveSecond {
    const entry = this.open.get(second);
    this.open.delete(second);
    this.closedThrough = second;
    this.dirty = true;
    const stats = entry?.stats ?? new StatsAggregate();
    const vus = entry?.vus ?? 0;
    const total = stats.total();
    const point = toPoint(second, total, vus);
    const requests: Record<string, TimeseriesPoint> = {};
    this.pendingSeconds.push(toRow(this.runId, "", point));
    for (const aggregate of stats.list()) {
      requests[aggregate.name] = toPoint(second, aggregate, vus);
      this.pendingSeconds.push(toRow(this.runId, aggregate.name, requests[aggregate.name]));
    }
    this.cumulative.addAggregate(stats);
    for (const { workerId, seq, requests: sent } of entry?.batches ?? []) {
      const worker = this.workers.get(workerId);
      if (!worker) continue;
      worker.requests += sent;
      this.markMerged(worker, seq);
    }
    return {
      type: "run-second",
      runId: this.runId,
      point,
      requests,
      summary: this.summary(),
      elapsedS: second + 1,
    };
  }

  private mergeLate(worker: AggregatorWorker, batch: StatsBatch): void {
    this.cumulative.add(batch.requests, batch.dropped);
    let requests = 0;
    let failures = 0;
    for (const stats of batch.requests) {
      this.addLateCounts(stats.name, batch.second, stats.requests, stats.failures);
      requests += stats.requests;
      failures += stats.failures;
    }
    this.addLateCounts("", batch.second, requests, failures);
    worker.requests += requests;
    this.markMerged(worker, batch.seq);
  }

  private addLateCounts(name: string, second: number, requests: number, failures: number): void {
    const key = `${name}\u0000${second}`;
    const entry = this.pendingLate.get(key);
    if (entry) {
      entry.requests += requests;
      entry.failures += failures;
    } else {
      this.pendingLate.set(key, { name, second, requests, failures });
    }
  }

  private markMerged(worker: AggregatorWorker, seq: number): void {
    worker.merged.add(seq);
    const list = this.pendingDeletions.get(worker.workerId);
    if (list) list.push(seq);
    else this.pendingDeletions.set(worker.workerId, [seq]);
  }
}

function countRequests(batch: StatsBatch): number {
  let requests = 0;
  for (const stats of batch.requests) requests += stats.requests;
  return requests;
}

export function isWorkerDone(worker: AggregatorWorker): boolean {
  return worker.finalSeq !== null && worker.received.contiguousBelow > worker.finalSeq;
}

function rank(order: string[], name: string): number {
  const index = order.indexOf(name);
  return index < 0 ? order.length : index;
}

function toPoint(second: number, aggregate: RequestAggregate, vus: number): TimeseriesPoint {
  const has = aggregate.requests > 0;
  const ms = (p: number) => (has ? Math.round(aggregate.percentileUs(p)) / 1000 : null);
  return {
    t: second,
    rps: aggregate.requests,
    errorsPerSec: aggregate.failures,
    vus,
    p50: ms(50),
    p95: ms(95),
    p99: ms(99),
  };
}

function toRow(runId: string, name: string, point: TimeseriesPoint): RunSecondRow {
  return {
    runId,
    name,
    second: point.t,
    requests: point.rps,
    failures: point.errorsPerSec,
    vus: point.vus,
    p50Ms: point.p50,
    p95Ms: point.p95,
    p99Ms: point.p99,
  };
}
