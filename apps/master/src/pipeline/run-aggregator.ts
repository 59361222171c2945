import type { RunAggregateRow, RunSecondRow, RunUpdate, RunWorkerUpdate } from "@volley/db";
import {
  type CombinedBatch,
  type LiveSecond,
  MAX_METRICS_PER_RUN,
  type MetricKind,
  maxOf,
  metricStatsName,
  type RunSummary,
  requestCount,
  type Scenario,
  type StatsBatch,
  scenarioNames,
  type TimeseriesPoint,
} from "@volley/protocol";
import { DecodedHistograms, metricsAmong, StatsAggregate } from "@volley/stats";
import { type BatchLimits, checkBatch, checkCombinedBatch } from "./batch-check.js";
import { aggregateRows, closeSecond } from "./closed-second.js";
import { type LateCounts, PendingLateCounts } from "./late-counts.js";
import type { AggregatorWorker, MergeState, OpenSecondState } from "./merge-state.js";
import { isWorkerDone, workerStatus } from "./merge-state.js";
import { OpenSeconds, type SecondMeasurements } from "./open-seconds.js";
import { RecentSeconds } from "./recent-seconds.js";
import { describeSummary } from "./run-summary.js";
import { RunWorkers } from "./run-workers.js";
import { ScenarioSeries } from "./scenario-series.js";

/** How long after a second ends the master waits for slow workers before closing it anyway. */
export const DEFAULT_LATE_MS = 5000;

/** Everything one checkpoint writes, in one transaction of a few statements. */
export interface Checkpoint {
  runId: string;
  seconds: RunSecondRow[];
  late: LateCounts[];
  aggregates: RunAggregateRow[];
  /** The run's figures and, in `mergeState`, the workers' progress and the open seconds. */
  run: RunUpdate;
}

/** Most distinct names (requests, groups, checks, scripts) a scripted run may record. */
export const MAX_SCRIPTED_RUN_NAMES = 5000;

export interface RunAggregatorInit {
  runId: string;
  /** Scheduled start (master clock, epoch ms); null while unknown. */
  startAt: number | null;
  requestOrder: string[];
  /** Last second a batch may describe (see `maxBatchSecond`). */
  maxSecond: number;
  workers: AggregatorWorker[];
  closedThrough?: number;
  cumulative?: StatsAggregate;
  open?: OpenSecondState[];
  lateMs?: number;
  /**
   * The run's scenario: its parts get series of their own, and the summary names flows,
   * scenarios and checks. Without it (tests of merging alone) the summary is bare.
   */
  scenario?: Scenario;
}

/**
 * Merges one run's batches: per second across workers (a second closes once every live worker
 * reported it, or after a grace period), then into the run's cumulative figures. A checkpoint
 * writes the closed seconds, the totals, the open seconds and every worker's merged seqs in one
 * transaction; batches are acknowledged to the queue only after it, so a batch counts exactly
 * once across crashes and redeliveries.
 */
export class RunAggregator {
  readonly runId: string;
  startAt: number | null;
  closedThrough: number;
  readonly cumulative: StatsAggregate;
  private readonly workers: RunWorkers;
  private readonly open: OpenSeconds;
  private readonly order: string[];
  private readonly limits: BatchLimits;
  private readonly lateMs: number;
  private readonly scenarioSeries: ScenarioSeries;
  readonly scenario: Scenario | null;
  private highestSecond: number;
  private pendingSeconds: RunSecondRow[] = [];
  private readonly pendingLate = new PendingLateCounts();
  private dirty = false;

  constructor(init: RunAggregatorInit) {
    this.runId = init.runId;
    this.startAt = init.startAt;
    this.order = init.requestOrder;
    this.closedThrough = init.closedThrough ?? -1;
    this.cumulative = init.cumulative ?? new StatsAggregate();
    const scripted = init.scenario?.parts.some((part) => part.script !== null) ?? false;
    this.limits = {
      names: new Set(init.requestOrder),
      maxSecond: init.maxSecond,
      ...(scripted && {
        scriptNames: {
          max: MAX_SCRIPTED_RUN_NAMES,
          known: (name: string) => this.cumulative.get(name) !== undefined,
          count: () => this.cumulative.size,
        },
        metricProblem: (metric: { name: string; kind: MetricKind }) => this.metricProblem(metric),
      }),
    };
    this.lateMs = init.lateMs ?? DEFAULT_LATE_MS;
    this.scenario = init.scenario ?? null;
    this.scenarioSeries = new ScenarioSeries(init.scenario ? scenarioNames(init.scenario) : []);
    this.workers = new RunWorkers(init.workers);
    this.open = new OpenSeconds(init.open ?? [], init.maxSecond);
    this.highestSecond = Math.min(
      maxOf([...this.open.numbers(), ...init.workers.map((w) => w.received.highest)], this.closedThrough),
      Math.max(init.maxSecond, this.closedThrough),
    );
  }

  /** Why a batch's custom metric cannot be taken: the run has it as another type, or has 200. */
  private metricProblem({ name, kind }: { name: string; kind: MetricKind }): string | null {
    if (this.cumulative.get(metricStatsName(name, kind))) return null;
    const known = metricsAmong(this.cumulative.list());
    const other = known.find((m) => m.name === name);
    if (other)
      return `is metric "${name}" as a ${other.kind.type} (the run has it as a ${other.kind.type} already)`;
    return known.length < MAX_METRICS_PER_RUN
      ? null
      : `is one custom metric too many (a run has at most ${MAX_METRICS_PER_RUN})`;
  }

  /** Hears each second as it closes, with its merged statistics (a capacity search's judge). */
  onSecondClosed: ((second: number, stats: StatsAggregate) => void) | null = null;

  /** The last second merged, for "now" figures while the run is live. */
  lastPoint: TimeseriesPoint | null = null;
  private readonly recent = new RecentSeconds();

  /** The statistics of the last RECENT_SECONDS closed seconds, merged. */
  recentStats(): StatsAggregate {
    return this.recent.merged();
  }

  workerList(): AggregatorWorker[] {
    return this.workers.list();
  }

  /** A worker that joined the run while it goes (a rebalance): its batches count from now on. */
  addWorker(workerId: string, name: string): void {
    if (this.workers.add(workerId, name)) this.dirty = true;
  }

  hasWorker(workerId: string): boolean {
    return this.workers.get(workerId) !== undefined;
  }

  /** True when the batch was merged before (a redelivery). */
  isDuplicate(batch: Pick<StatsBatch, "workerId" | "seq">): boolean {
    return this.workers.isDuplicate(batch);
  }

  /**
   * Why the batch cannot be merged (checked whole, before anything of it is applied), or null.
   * `histograms` receives its histograms, read, for `accept`.
   */
  problem(batch: StatsBatch, histograms = new DecodedHistograms()): string | null {
    const worker = this.workers.get(batch.workerId);
    return worker
      ? checkBatch(batch, worker, this.limits, histograms)
      : `worker ${batch.workerId} has no part in the run`;
  }

  /**
   * Merges a batch into its open second, or into the totals when its second is closed already.
   * `histograms`: the batch's histograms as `problem` read them (else they are read here).
   */
  accept(batch: StatsBatch, histograms?: DecodedHistograms): void {
    const worker = this.workers.get(batch.workerId);
    if (!worker || worker.received.has(batch.seq)) return;
    this.workers.cover(worker, { ...batch, requests: requestCount(batch.requests) });
    this.merge(batch, histograms);
  }

  /** Whether an aggregator's group was merged before: none of it, all of it, or (never sent) part. */
  combinedState(batch: CombinedBatch): "new" | "duplicate" | "overlap" {
    return this.workers.combinedState(batch);
  }

  /** Why an aggregator's group cannot be merged (checked whole, as `problem` does), or null. */
  combinedProblem(batch: CombinedBatch, histograms = new DecodedHistograms()): string | null {
    return checkCombinedBatch(batch, (id) => this.workers.get(id), this.limits, histograms);
  }

  /** Merges an aggregator's group: every batch it covers is merged at once, exactly as `accept`. */
  acceptCombined(batch: CombinedBatch, histograms?: DecodedHistograms): void {
    if (this.combinedState(batch) !== "new") return;
    for (const cover of batch.covers) {
      const worker = this.workers.get(cover.workerId);
      if (worker) this.workers.cover(worker, cover);
    }
    this.merge(batch, histograms);
  }

  private merge(batch: SecondMeasurements, histograms?: DecodedHistograms): void {
    this.highestSecond = Math.max(this.highestSecond, batch.second);
    this.dirty = true;
    if (batch.second <= this.closedThrough) {
      this.mergeLate(batch, histograms);
      return;
    }
    this.open.add(batch, histograms);
  }

  markLost(workerId: string, lost = true): void {
    if (this.workers.markLost(workerId, lost)) this.dirty = true;
  }

  /** Closes every second that is ready; returns what the live view should show for each. */
  closeReady(now: number): LiveSecond[] {
    const closed: LiveSecond[] = [];
    while (this.startAt !== null) {
      const second = this.closedThrough + 1;
      if (second > this.limits.maxSecond) break; // no batch can fill it: nothing to wait for
      const active = this.workers.running();
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

  /**
   * Seconds of load: the longest slice once all finished, else the seconds merged so far. A lost
   * worker has no final time, so with one the seconds merged bound it from below: never a
   * near-zero duration that would turn counts into absurd rates. 0 only when nothing was merged.
   */
  durationS(): number {
    const workers = this.workerList();
    const finals = workers.flatMap((w) => (w.finalElapsedMs === null ? [] : [w.finalElapsedMs]));
    const measured = maxOf(finals, 0) / 1000;
    const merged = this.closedThrough + 1;
    if (!this.isComplete || workers.some((w) => w.lost)) return Math.max(measured, merged);
    return measured;
  }

  /** Requests per second over durationS; 0 without a duration. */
  private rps(requests: number): number {
    const seconds = this.durationS();
    return seconds > 0 ? requests / seconds : 0;
  }

  summary(): RunSummary {
    const summary = this.cumulative.summarize(this.durationS(), this.order);
    return this.scenario ? describeSummary(summary, this.scenario, this.cumulative) : summary;
  }

  /** What to persist now, or null when nothing changed. The state moves on; `restore` undoes it. */
  takeCheckpoint(): Checkpoint | null {
    if (!this.dirty) return null;
    this.dirty = false;
    const total = this.cumulative.total();
    const checkpoint: Checkpoint = {
      runId: this.runId,
      seconds: this.pendingSeconds,
      late: this.pendingLate.take(),
      aggregates: aggregateRows(this.runId, this.cumulative, this.order),
      run: {
        closedThrough: this.closedThrough,
        requests: total.requests,
        failures: total.failures,
        dropped: this.cumulative.dropped,
        durationS: this.durationS(),
        rps: this.rps(total.requests),
        p95Ms: total.requests ? total.percentileUs(95) / 1000 : null,
        mergeState: JSON.stringify(this.mergeState()),
      },
    };
    this.pendingSeconds = [];
    return checkpoint;
  }

  /** Puts back what a failed checkpoint did not write. */
  restore(checkpoint: Checkpoint): void {
    this.dirty = true;
    this.pendingSeconds = checkpoint.seconds.concat(this.pendingSeconds);
    this.pendingLate.restore(checkpoint.late);
  }

  /** The RunWorker rows' final figures (written once, when the run ends). */
  workerUpdates(): Array<{ workerId: string; update: RunWorkerUpdate }> {
    return this.workers.updates();
  }

  private mergeState(): MergeState {
    return {
      workers: this.workers.state(),
      open: this.open.state(),
    };
  }

  private close(second: number): LiveSecond {
    const { stats, vus } = this.open.take(second);
    this.closedThrough = second;
    this.dirty = true;
    const { point, requests, scenarios, metrics, rows } = closeSecond(
      this.runId,
      second,
      stats,
      vus,
      this.scenarioSeries,
    );
    this.lastPoint = point;
    this.pendingSeconds.push(...rows);
    this.cumulative.addAggregate(stats);
    this.recent.push(stats);
    this.onSecondClosed?.(second, stats);
    return {
      type: "run-second",
      runId: this.runId,
      point,
      requests,
      scenarios,
      metrics,
      summary: this.summary(),
      elapsedS: second + 1,
      workers: this.workerList().map((w) => ({
        workerId: w.workerId,
        requests: w.requests,
        status: workerStatus(w),
      })),
    };
  }

  private mergeLate(batch: SecondMeasurements, histograms?: DecodedHistograms): void {
    this.cumulative.add(batch.requests, batch.dropped, histograms);
    this.pendingLate.addBatch(batch, this.scenarioSeries);
  }
}
