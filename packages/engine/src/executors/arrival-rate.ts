import { performance } from "node:perf_hooks";
import type {
  CapacitySearchConfig,
  ConstantArrivalRateConfig,
  LoadChange,
  Partition,
  RampingArrivalRateConfig,
} from "@volley/protocol";
import type { EngineVu } from "../vu/engine-vu.js";
import { BaseExecutor, type ExecutorContext } from "./base-executor.js";
import { type RateProfile, withRateOverride } from "./rate-profile.js";

type ArrivalConfig = ConstantArrivalRateConfig | RampingArrivalRateConfig | CapacitySearchConfig;

/**
 * How late a thread may begin and still send the iterations due meanwhile (a timer fires a
 * little late; their latency counts those few milliseconds from their schedule).
 */
export const LATE_START_TOLERANCE_MS = 20;

/**
 * Open model: iterations start on schedule whether or not earlier ones finished. The whole
 * load's iteration sequence is dealt out by the partition, so threads and workers interleave
 * instead of bursting together. An iteration that finds every VU busy (up to maxVus) is dropped.
 */
export abstract class ArrivalRateExecutor<C extends ArrivalConfig> extends BaseExecutor<C> {
  /** Iterations of this thread already started or dropped. */
  private taken = 0;
  private dispatchTimer: NodeJS.Timeout | null = null;
  /** The epochs' iteration ranges, computed once per rebalance or load change (not per iteration). */
  private shareRanges: Array<{ from: number; to: number; partition: Partition | null }> | null = null;
  private started = false;

  constructor(
    config: C,
    ctx: ExecutorContext,
    private profile: RateProfile,
  ) {
    // At least one VU per thread: a small part of a mix must not leave a thread dropping everything.
    super(config, ctx, Math.max(1, ctx.partition.count(config.maxVus)));
  }

  start(): void {
    this.started = true;
    this.scheduleAt(this.profile.durationMs, () => this.stop());
    this.missLateIterations();
    this.dispatchDue();
  }

  /**
   * A thread that begins after the scheduled start (it was not ready in time) does not send the
   * iterations already overdue at once: timed from their schedule, the generator's lateness
   * would read as the target's latency. They are dropped, and recorded as due before the thread
   * began (the report warns with how late); those within LATE_START_TOLERANCE_MS are sent.
   */
  private missLateIterations(): void {
    const lateMs = this.elapsed();
    const missed = this.countOf(this.profile.dueBy(lateMs - LATE_START_TOLERANCE_MS));
    if (missed <= this.taken) return;
    this.ctx.iterations?.startedLate(missed - this.taken, lateMs);
    for (; this.taken < missed; this.taken++) this.ctx.onDropped();
  }

  activeVus(): number {
    return this.pool.busyCount;
  }

  /** `rate` from `atMs` until `untilMs` (the end of the current stage, or of the run). */
  override applyLoad(change: LoadChange): void {
    if (change.rate === undefined) throw new Error(`${this.config.executor} takes rate, not vus`);
    this.profile = withRateOverride(this.profile, change.atMs, change.rate, change.untilMs);
    this.shareRanges = null;
    if (this.stopped || !this.started) return;
    // The next iteration's time has moved: schedule it anew.
    this.cancel(this.dispatchTimer);
    this.dispatchDue();
  }

  protected rebalanced(_atMs: number): void {
    this.shareRanges = null;
    if (this.stopped || !this.started) return;
    this.cancel(this.dispatchTimer);
    this.dispatchDue();
  }

  /**
   * The whole run's iterations split by epoch: those scheduled before a rebalance's moment by
   * the partition in force then, the rest by the new one (counted from the boundary). Every
   * thread computes the same boundaries from the same schedule.
   */
  private shares(): Array<{ from: number; to: number; partition: Partition | null }> {
    if (this.shareRanges) return this.shareRanges;
    const out: Array<{ from: number; to: number; partition: Partition | null }> = [];
    this.epochs.forEach((epoch, i) => {
      const next = this.epochs[i + 1];
      const from = i === 0 ? 0 : this.boundary(epoch.atMs);
      const to = next ? this.boundary(next.atMs) : Number.POSITIVE_INFINITY;
      out.push({ from, to: Math.max(from, to), partition: epoch.partition });
    });
    this.shareRanges = out;
    return out;
  }

  /** Iterations of the whole run scheduled before `atMs`. */
  private boundary(atMs: number): number {
    return Math.ceil(this.profile.accumulatedAt(atMs) - 1e-9);
  }

  /** How many of the whole run's first `total` iterations are this thread's. */
  private countOf(total: number): number {
    // The common case (no rebalance) stays as cheap as before: it runs for every iteration.
    const only = this.epochs.length === 1 ? this.epochs[0].partition : null;
    if (only) return only.count(total);
    let count = 0;
    for (const share of this.shares()) {
      if (total <= share.from || !share.partition) continue;
      count += share.partition.count(Math.min(total, share.to) - share.from);
    }
    return count;
  }

  /** The whole run's index of this thread's k-th iteration. */
  private unitOf(k: number): number {
    const only = this.epochs.length === 1 ? this.epochs[0].partition : null;
    if (only) return only.unitOf(k);
    let before = 0;
    for (const share of this.shares()) {
      if (!share.partition) continue;
      const mine = Number.isFinite(share.to)
        ? share.partition.count(share.to - share.from)
        : Number.POSITIVE_INFINITY;
      if (k < before + mine) return share.from + share.partition.unitOf(k - before);
      before += mine;
    }
    return Number.POSITIVE_INFINITY;
  }

  /**
   * Counted before stopping, so that every iteration the schedule held is counted once (sent,
   * dropped or skipped): those due by now that the dispatch timer had not taken yet (it fires a
   * little late; the run's end may come first) are dropped.
   */
  override stop(): void {
    if (!this.stopped && this.started) {
      const due = this.countOf(this.profile.dueBy(performance.now() - this.ctx.startAt));
      for (; this.taken < due; this.taken++) this.ctx.onDropped();
    }
    super.stop();
  }

  protected afterIteration(vu: EngineVu): void {
    this.pool.release(vu);
    // A unique feeder of this thread ran out: no later iteration can run. The rest of this
    // thread's schedule is counted skipped, as the iteration that found the feeder empty was.
    if (vu.exhausted) {
      const scheduled = this.countOf(this.profile.dueBy(this.profile.durationMs));
      this.skipIterations(scheduled - this.taken);
      this.taken = scheduled;
      this.complete();
    }
  }

  private dispatchDue(): void {
    this.dispatchTimer = null;
    if (this.stopped) return;
    const { startAt } = this.ctx;
    const due = this.countOf(this.profile.dueBy(performance.now() - startAt));
    while (this.taken < due) {
      const scheduledAt = startAt + this.profile.timeOf(this.unitOf(this.taken));
      this.taken++;
      const vu = this.pool.acquire();
      if (vu) this.pool.run(vu, scheduledAt);
      else this.ctx.onDropped();
    }
    const next = this.profile.timeOf(this.unitOf(this.taken));
    if (Number.isFinite(next)) {
      this.dispatchTimer = this.schedule(() => this.dispatchDue(), startAt + next - performance.now());
    }
  }
}
