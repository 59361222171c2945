import { performance } from "node:perf_hooks";
import type { WriteBatch } from "../http/write-batch.js";

/** Requests admitted in 100 ms from which a thread polls without sleeping: 2,000 a second. */
const BUSY_PER_TICK = 200;
/**
 * A loop turn shorter than this between two polls did nothing (an empty poll takes a few µs
 * here, an answer handled 10-20 µs): its time is idle, not work. Under saturation each turn
 * handles many answers, so the estimate is exact where it matters.
 */
const EMPTY_TURN_MS = 0.02;

/**
 * An engine thread under heavy load polls its sockets without sleeping: an immediate that
 * schedules itself keeps libuv's poll phase from blocking, so a response is read as soon as it
 * lands instead of after the thread is woken (on this VM, 36k -> 51k req/s against nginx: the
 * thread had been idle half the time, waiting to be woken, with nginx idle too). Only while the thread admitted at least 2,000 requests
 * a second over the last 100 ms: a light load (a slow arrival rate) leaves the core idle.
 * Polling keeps the thread's CPU at 100 %: the time its empty turns took is counted
 * (`takeIdleMs`), and the worker reports its CPU without it, so a saturation warning still
 * means the generator ran out of CPU.
 */
export class BusyPoll {
  private spinning = false;
  private last = 0;
  private lastTurnAt = 0;
  private idleMs = 0;
  private readonly spin = () => {
    if (!this.spinning) return;
    const now = performance.now();
    const turn = now - this.lastTurnAt;
    if (turn < EMPTY_TURN_MS) this.idleMs += turn;
    this.lastTurnAt = now;
    setImmediate(this.spin);
  };

  constructor(
    private readonly admitted: () => number,
    /**
     * HTTP/1.1 only: one request per connection, each written as it is made, gains from reads
     * as soon as they land. HTTP/2 loses (22k against 29k req/s here): a session's requests
     * are written together after each read, and a thread that sleeps reads (and writes) more
     * streams at a time.
     */
    private readonly enabled = true,
    /** Written in batches while it polls without sleeping (see WriteBatch). */
    private readonly writes: WriteBatch | null = null,
  ) {}

  /** Called every 100 ms while the load runs: busy or not since the last call. */
  tick(): void {
    const now = this.admitted();
    const busy = this.enabled && now - this.last >= BUSY_PER_TICK;
    this.last = now;
    if (busy && !this.spinning) {
      this.spinning = true;
      this.lastTurnAt = performance.now();
      setImmediate(this.spin);
    } else if (!busy) {
      this.spinning = false;
    }
    if (this.writes !== null) this.writes.active = this.spinning;
  }

  /** Whether it polls without sleeping now. */
  get active(): boolean {
    return this.spinning;
  }

  /** The time polling found nothing to do since the last call, ms. */
  takeIdleMs(): number {
    const idle = this.idleMs;
    this.idleMs = 0;
    return idle;
  }

  stop(): void {
    this.spinning = false;
    if (this.writes !== null) this.writes.active = false;
  }
}
