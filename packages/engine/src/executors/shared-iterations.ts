import { rangesLength, type SharedIterationsConfig, startingRanges } from "@volley/protocol";
import type { EngineVu } from "../vu/engine-vu.js";
import type { ExecutorContext } from "./base-executor.js";
import { ClosedModelExecutor } from "./closed-model.js";

/**
 * `iterations` iterations shared by `vus` VUs across the fleet. Each thread's share is dealt at
 * the start in proportion to the VUs it really runs (as unique rows are), so the shares add up to
 * exactly `iterations` and a thread without VUs gets none; within the thread, a VU that finishes
 * early takes the next one.
 */
export class SharedIterationsExecutor extends ClosedModelExecutor<SharedIterationsConfig> {
  /** Iterations of this thread's share not taken by a VU yet. */
  private left: number;

  constructor(config: SharedIterationsConfig, ctx: ExecutorContext) {
    super(config, ctx, ctx.partition.count(config.vus));
    this.left = rangesLength(startingRanges(config.iterations, ctx.partition.steps, config.vus));
  }

  /** This thread's share of the iterations (for tests and the plan). */
  get share(): number {
    return this.left;
  }

  start(): void {
    if (this.pool.capacity === 0 || this.left === 0) {
      this.complete();
      return;
    }
    this.scheduleAt(this.config.maxDuration, () => this.stop());
    this.setPlannedTarget(this.config.vus);
  }

  /** A VU may start an iteration while the share has one left; it takes it. */
  protected override mayIterate(_vu: EngineVu): boolean {
    if (this.left === 0) return false;
    this.left--;
    return true;
  }

  protected override hasIterationsLeft(_vu: EngineVu): boolean {
    return this.left > 0;
  }

  protected override feederRanOut(_vu: EngineVu): void {
    // The feeder ran out: none of the share's iterations left will find a row.
    this.skipIterations(this.left);
    this.left = 0;
  }

  protected override allIterationsDone(): boolean {
    return this.left === 0;
  }
}
