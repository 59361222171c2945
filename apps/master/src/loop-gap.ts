/**
 * How long a periodic check was blind: the time between two of its ticks beyond the interval
 * it asked for. A master whose event loop stopped (a long parse, `kill -STOP`, a frozen disk)
 * heard nothing meanwhile, so silence over that gap is not a worker's: the checks that judge
 * silence (heartbeat timeouts, absent workers, a run's planned end) move their marks by it.
 */
export class LoopGap {
  private last: number | null = null;

  /** @param intervalMs the tick interval; gaps up to twice it are ordinary timer jitter. */
  constructor(private readonly intervalMs: number) {}

  /** Milliseconds this check could not see since its previous tick (0 in ordinary times). */
  tick(now: number): number {
    const last = this.last;
    this.last = now;
    if (last === null) return 0;
    const gap = now - last;
    return gap > 2 * this.intervalMs ? gap - this.intervalMs : 0;
  }
}
