import { performance } from "node:perf_hooks";
import type {
  CapacitySearchConfig,
  ConstantArrivalRateConfig,
  LoadChange,
  RampingArrivalRateConfig,
} from "@volley/protocol";
import type { EngineVu } from "../vu/engine-vu.js";
import { BaseExecutor, type ExecutorContext } from "./base-executor.js";
import { type RateProfile, withRateOverride } from "./rate-profile.js";

type ArrivalConfig = ConstantArrivalRateConfig | RampingArrivalRateConfig | CapacitySearchConfig;

/**
 * Open model: iterations start on schedule whether or not earlier ones finished. The whole
 * load's iteration sequence is dealt out by the partition, so threads and workers interleave
 * instead of bursting together. An iteration that finds every VU busy (up to maxVus) is dropped.
 */
export abstract class ArrivalRateExecutor<C extends ArrivalConfig> extends BaseExecutor<C> {
  /** Iterations of this thread already started or dropped. */
  private taken = 0;
  private dispatchTimer: NodeJS.Timeout | null = null;
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
    this.schedule(() => this.stop(), this.profile.durationMs);
    this.dispatchDue();
  }

  activeVus(): number {
    return this.pool.busyCount;
  }

  /** `rate` from `atMs` until `untilMs` (the end of the current stage, or of the run). */
  override applyLoad(change: LoadChange): void {
    if (change.rate === undefined) throw new Error(`${this.config.executor} takes rate, not vus`);
    this.profile = withRateOverride(this.profile, change.atMs, change.rate, change.untilMs);
    if (this.stopped || !this.started) return;
    // The next iteration's time has moved: schedule it anew.
    this.cancel(this.dispatchTimer);
    this.dispatchDue();
  }

  protected afterIteration(vu: EngineVu): void {
    this.pool.release(vu);
    // A unique feeder of this thread ran out: no later iteration could run.
    if (vu.exhausted) this.complete();
  }

  private dispatchDue(): void {
    this.dispatchTimer = null;
    if (this.stopped) return;
    const { partition, startAt } = this.ctx;
    const due = partition.count(this.profile.dueBy(performance.now() - startAt));
    while (this.taken < due) {
      const scheduledAt = startAt + this.profile.timeOf(partition.unitOf(this.taken));
      this.taken++;
      const vu = this.pool.acquire();
      if (vu) this.pool.run(vu, scheduledAt);
      else this.ctx.onDropped();
    }
    const next = this.profile.timeOf(partition.unitOf(this.taken));
    if (Number.isFinite(next)) {
      this.dispatchTimer = this.schedule(() => this.dispatchDue(), startAt + next - performance.now());
    }
  }
}
