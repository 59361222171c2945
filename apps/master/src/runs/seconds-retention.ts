import type { Database } from "@volley/db";
import type { Logger } from "pino";

const DAY_MS = 86_400_000;
/** How often old per-second statistics are looked for (and once at start). */
const SWEEP_EVERY_MS = 3_600_000;

/**
 * Drops the per-second statistics (the exact-window histograms) of runs that finished more than
 * `days` ago, at start and then hourly; totals, reports and time series stay. Off for 0 days.
 */
export class SecondsRetention {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly days: number,
    private readonly log: Logger,
  ) {}

  /** The first moment whose runs still have their per-second statistics, or null (kept forever). */
  cutoff(now = Date.now()): Date | null {
    return this.days > 0 ? new Date(now - this.days * DAY_MS) : null;
  }

  start(): void {
    if (this.days <= 0) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(now = Date.now()): Promise<number> {
    const before = this.cutoff(now);
    if (!before) return 0;
    try {
      const dropped = await this.db.seconds.dropStatsOfRunsBefore(before);
      if (dropped) this.log.info({ rows: dropped, days: this.days }, "dropped old per-second statistics");
      return dropped;
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, "could not drop old per-second statistics");
      return 0;
    }
  }
}
