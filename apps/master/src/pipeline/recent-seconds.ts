import { StatsAggregate } from "@volley/stats";

/** Seconds `RecentSeconds` covers (Prometheus quantiles "over the last 10 s"). */
export const RECENT_SECONDS = 10;

/** The last RECENT_SECONDS closed seconds' statistics, for metrics over a recent window. */
export class RecentSeconds {
  private readonly seconds: StatsAggregate[] = [];

  push(stats: StatsAggregate): void {
    this.seconds.push(stats);
    if (this.seconds.length > RECENT_SECONDS) this.seconds.shift();
  }

  /** The window's statistics, merged. */
  merged(): StatsAggregate {
    const merged = new StatsAggregate();
    for (const second of this.seconds) merged.addAggregate(second);
    return merged;
  }
}
