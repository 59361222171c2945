import { performance } from "node:perf_hooks";
import type { LoadChange, LoadConfig, Partition } from "@volley/protocol";
import { atMoment } from "../timing/at-moment.js";
import type { EngineVu, VuFactory } from "../vu/engine-vu.js";
import type { IterationLog } from "../vu/iteration-log.js";
import { VuPool } from "../vu/vu-pool.js";

/** What an executor gets from the thread it runs in. */
export interface ExecutorContext {
  /** Makes the part's VUs (declarative or scripted). */
  createVu: VuFactory;
  /** This thread's slice of the whole load. */
  partition: Partition;
  /** Added to VU numbers: the VUs of the scenario's parts before this one. @defaultValue 0 */
  vuNumberOffset?: number;
  /** performance.now() of the run's scheduled start. */
  startAt: number;
  /**
   * Set on a worker that joins a running run (`POST /api/runs/:id/rebalance`): ms since the
   * start from which `partition` is its share; before it, it had none.
   */
  joinAtMs?: number;
  /** Records the part's iterations (finished, skipped). @defaultValue none */
  iterations?: IterationLog;
  /** Counts an iteration that found no free VU. */
  onDropped: () => void;
  /** Called once, when no VU is busy any more after the end (or a stop). */
  onDone: () => void;
}

/**
 * Shared life cycle of every executor: start, stop (no new iterations; running ones get
 * gracefulStop, then are aborted and counted as aborted; ones that sent nothing yet end
 * uncounted), and done once no VU is busy.
 */
export abstract class BaseExecutor<C extends LoadConfig = LoadConfig> {
  protected readonly pool: VuPool;
  /**
   * The thread's share of the whole load over time: the partition it started with, then each
   * rebalance's from its moment on (null: no share, a worker that joined later).
   */
  protected readonly epochs: Array<{ atMs: number; partition: Partition | null }>;
  protected stopped = false;
  private finished = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    protected readonly config: C,
    protected readonly ctx: ExecutorContext,
    capacity: number,
  ) {
    this.epochs =
      ctx.joinAtMs === undefined
        ? [{ atMs: 0, partition: ctx.partition }]
        : [
            { atMs: 0, partition: null },
            { atMs: ctx.joinAtMs, partition: ctx.partition },
          ];
    this.pool = new VuPool(
      ctx.createVu,
      ctx.partition,
      capacity,
      (vu) => this.iterationEnded(vu),
      ctx.vuNumberOffset,
      ctx.iterations ?? null,
    );
  }

  /** Begins the load; called at the scheduled start. */
  abstract start(): void;

  /** Starts the load, then the switches of share already known (a worker that joined late). */
  begin(): void {
    this.start();
    for (const epoch of this.epochs) if (epoch.atMs > 0) this.rebalanced(epoch.atMs);
  }

  /** VUs taking part now (for the VUs figure). */
  abstract activeVus(): number;

  /** Decides what a VU does after an iteration while the executor runs. */
  protected abstract afterIteration(vu: EngineVu): void;

  /** Milliseconds since the scheduled start. */
  protected elapsed(): number {
    return performance.now() - this.ctx.startAt;
  }

  /** A timer that `stop` clears. */
  protected schedule(callback: () => void, delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        callback();
      },
      Math.max(0, delayMs),
    );
    this.timers.add(timer);
    return timer;
  }

  /** Runs `callback` at `atMs` since the start, never before it (see atMoment). */
  protected scheduleAt(atMs: number, callback: () => void): void {
    atMoment(this.ctx.startAt + atMs, callback, (fire, delayMs) => this.schedule(fire, delayMs));
  }

  protected cancel(timer: NodeJS.Timeout | null): void {
    if (!timer) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /**
   * From `atMs` on, this thread's share is `partition`'s (a worker joined the run). Every thread
   * of every worker switches at the same moment, so the shares keep adding up.
   */
  rebalance(atMs: number, partition: Partition): void {
    this.epochs.push({ atMs, partition });
    this.epochs.sort((a, b) => a.atMs - b.atMs);
    this.rebalanced(atMs);
  }

  /** What an executor does when its share changes at `atMs`. */
  protected abstract rebalanced(atMs: number): void;

  /** The partition in force at `ms` since the start. */
  protected partitionAt(ms: number): Partition | null {
    // The first share holds from the start whatever the clock says (a timer may fire a
    // millisecond early); later ones from their moment.
    let current = this.epochs[0].partition;
    for (let i = 1; i < this.epochs.length; i++)
      if (this.epochs[i].atMs <= ms + 1) current = this.epochs[i].partition;
    return current;
  }

  /**
   * Applies a change of the whole run's load made while it runs (`PATCH /api/runs/:id/load`).
   * The master only sends an executor the knob it has; per-vu-iterations has none.
   */
  applyLoad(_change: LoadChange): void {
    throw new Error(`${this.config.executor} takes no load changes`);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // Iterations still waiting to send their first request do not start (gracefulStop is for
    // iterations under way): with many VUs per connection, they would hold the stop for long.
    this.pool.abortUnstarted();
    if (this.pool.busyCount === 0) {
      this.finish();
      return;
    }
    const grace = setTimeout(() => this.pool.abortAll(), this.config.gracefulStop);
    grace.unref?.();
    this.timers.add(grace);
  }

  /** Planned iterations that will not start: their feeder ran out. */
  protected skipIterations(count: number): void {
    if (count > 0) this.ctx.iterations?.skip(count);
  }

  /** Ends the executor by itself (all iterations done) without waiting for a stop. */
  protected complete(): void {
    this.stopped = true;
    if (this.pool.busyCount === 0) this.finish();
  }

  private iterationEnded(vu: EngineVu): void {
    if (this.stopped) {
      if (this.pool.busyCount === 0) this.finish();
      return;
    }
    this.afterIteration(vu);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.ctx.onDone();
  }
}
