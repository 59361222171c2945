import type { LoadConfig } from "@volley/protocol";
import type { VirtualUser } from "../vu/virtual-user.js";
import { BaseExecutor } from "./base-executor.js";

/** How often VU targets are recomputed while they change. */
export const TARGET_TICK_MS = 50;

/**
 * Base of the closed-model executors (a fixed set of VUs, each looping over iterations): the
 * subclass says how many VUs the whole load wants at a time, the partition gives this thread's
 * part. VUs above the target finish their iteration and then rest.
 */
export abstract class ClosedModelExecutor<C extends LoadConfig> extends BaseExecutor<C> {
  private target = 0;
  private readonly looping: boolean[] = [];
  private loopingCount = 0;

  /** Iterations each VU runs before it stops; Infinity for time-bound executors. */
  protected maxIterations = Number.POSITIVE_INFINITY;

  activeVus(): number {
    return this.loopingCount;
  }

  /** Sets this thread's VU count from the whole load's count. */
  protected setGlobalTarget(globalTarget: number): void {
    this.setTarget(Math.min(this.ctx.partition.count(globalTarget), this.pool.capacity));
  }

  private setTarget(target: number): void {
    this.target = target;
    for (let j = 0; j < target; j++) {
      if (this.looping[j]) continue;
      const vu = this.pool.get(j);
      if (vu.iteration >= this.maxIterations) continue;
      this.looping[j] = true;
      this.loopingCount++;
      if (!vu.busy) this.pool.run(vu);
    }
  }

  protected afterIteration(vu: VirtualUser): void {
    if (vu.index < this.target && vu.iteration < this.maxIterations) {
      this.pool.run(vu);
      return;
    }
    this.looping[vu.index] = false;
    this.loopingCount--;
    if (
      this.loopingCount === 0 &&
      this.maxIterations !== Number.POSITIVE_INFINITY &&
      this.allIterationsDone()
    ) {
      this.complete();
    }
  }

  private allIterationsDone(): boolean {
    for (let j = 0; j < this.target; j++) if (this.pool.get(j).iteration < this.maxIterations) return false;
    return true;
  }
}
