import { EXECUTOR_CAPABILITIES, type LoadChange, type LoadConfig } from "@volley/protocol";
import type { EngineVu } from "../vu/engine-vu.js";
import { BaseExecutor } from "./base-executor.js";

/** How often VU targets are recomputed while they change. */
export const TARGET_TICK_MS = 50;

/**
 * VUs looked at per event-loop turn when the target changes: starting a hundred thousand VUs in
 * one go would hold the thread for seconds, and its per-second stats and stop with it.
 */
const START_CHUNK = 2000;

/**
 * Base of the closed-model executors (a fixed set of VUs, each looping over iterations): the
 * subclass says how many VUs the whole load wants at a time, the partition gives this thread's
 * part. VUs above the target finish their iteration and then rest.
 */
export abstract class ClosedModelExecutor<C extends LoadConfig> extends BaseExecutor<C> {
  private target = 0;
  private readonly looping: boolean[] = [];
  private loopingCount = 0;
  /** Next VU index `fill` looks at, and whether a fill is scheduled. */
  private fillFrom = 0;
  private fillPending: NodeJS.Immediate | null = null;

  /** Iterations each VU runs before it stops; Infinity for time-bound executors. */
  protected maxIterations = Number.POSITIVE_INFINITY;

  activeVus(): number {
    return this.loopingCount;
  }

  /** What the plan wants now (the whole run's VUs), and the changes made while running. */
  private planned = 0;
  private readonly changes: LoadChange[] = [];

  /** Sets the whole load's VU count as the plan has it now; a load change in force wins. */
  protected setPlannedTarget(globalTarget: number): void {
    this.planned = globalTarget;
    this.retarget();
  }

  /** `vus` from `atMs` until `untilMs` (the end of the current stage, or of the run). */
  override applyLoad(change: LoadChange): void {
    if (change.vus === undefined) throw new Error(`${this.config.executor} takes vus, not rate`);
    this.changes.push(change);
    this.changes.sort((a, b) => a.atMs - b.atMs);
    this.scheduleAt(change.atMs, () => this.retarget());
    if (change.untilMs !== null) this.scheduleAt(change.untilMs, () => this.retarget());
  }

  /** Each change replaces the one before it; once the latest has run its course, the plan rules. */
  private retarget(): void {
    const now = this.elapsed();
    let latest: LoadChange | null = null;
    for (const change of this.changes) if (change.atMs <= now + 1) latest = change;
    const inForce = latest !== null && (latest.untilMs === null || now < latest.untilMs);
    const globalTarget = inForce ? (latest?.vus as number) : this.planned;
    const share = this.partitionAt(now);
    this.setTarget(share ? Math.min(share.count(globalTarget), this.pool.capacity) : 0);
  }

  protected rebalanced(atMs: number): void {
    this.scheduleAt(atMs, () => this.retarget());
  }

  private setTarget(target: number): void {
    const grew = target > this.target;
    this.target = target;
    if (grew && this.fillPending === null) this.fill();
  }

  /** Starts the VUs below the target that are not looping yet, a chunk per event-loop turn. */
  private readonly fill = (): void => {
    this.fillPending = null;
    const end = Math.min(this.target, this.fillFrom + START_CHUNK);
    for (let j = this.fillFrom; j < end && !this.stopped; j++) {
      if (this.looping[j]) continue;
      const vu = this.pool.get(j);
      // A VU still finishing an iteration decides at its end; an idle one takes one if any is left.
      if (!vu.busy && !this.mayIterate(vu)) continue;
      this.looping[j] = true;
      this.loopingCount++;
      if (!vu.busy) this.pool.run(vu);
    }
    this.fillFrom = end;
    if (this.stopped) return;
    if (this.fillFrom < this.target) this.fillPending = setImmediate(this.fill);
  };

  override stop(): void {
    if (this.fillPending) clearImmediate(this.fillPending);
    this.fillPending = null;
    super.stop();
  }

  protected afterIteration(vu: EngineVu): void {
    if (vu.exhausted) {
      // A unique feeder of this thread ran out: every later VU would find it empty too.
      this.looping[vu.index] = false;
      this.loopingCount--;
      this.feederRanOut(vu);
      if (this.loopingCount === 0) this.complete();
      return;
    }
    if (vu.index < this.target && this.mayIterate(vu)) {
      this.pool.run(vu);
      return;
    }
    this.looping[vu.index] = false;
    this.loopingCount--;
    // A VU stopped by a lower target must be looked at again when the target rises.
    if (this.hasIterationsLeft(vu)) this.fillFrom = Math.min(this.fillFrom, vu.index);
    if (this.loopingCount === 0 && this.iterationBound && this.allIterationsDone()) this.complete();
  }

  /** Whether the load ends with its iterations (per-vu-iterations, shared-iterations). */
  private get iterationBound(): boolean {
    return EXECUTOR_CAPABILITIES[this.config.executor].iterationBound;
  }

  /** Whether `vu` may start another iteration now; an executor sharing iterations takes one here. */
  protected mayIterate(vu: EngineVu): boolean {
    return vu.iteration < this.maxIterations;
  }

  /** Whether `vu` has iterations left to run (without taking one). */
  protected hasIterationsLeft(vu: EngineVu): boolean {
    return vu.iteration < this.maxIterations;
  }

  /**
   * `vu` found a unique feeder empty (that iteration is counted as skipped by the pool): the
   * planned iterations that can now never start are skipped too, its own after that one and,
   * once no VU loops, those of VUs the fill had not reached yet.
   */
  protected feederRanOut(vu: EngineVu): void {
    if (!Number.isFinite(this.maxIterations)) return;
    this.skipIterations(this.maxIterations - vu.iteration);
    if (this.loopingCount === 0)
      this.skipIterations(Math.max(0, this.target - this.fillFrom) * this.maxIterations);
  }

  protected allIterationsDone(): boolean {
    if (this.fillFrom < this.target) return false; // VUs not started yet
    for (let j = 0; j < this.target; j++) if (this.pool.get(j).iteration < this.maxIterations) return false;
    return true;
  }
}
