import type { StatsBatch } from "@volley/protocol";
import { type DecodedHistograms, StatsAggregate } from "@volley/stats";
import type { OpenSecondState } from "./merge-state.js";

/** What a batch, or an aggregator's group, measured in one second. */
export type SecondMeasurements = Pick<StatsBatch, "second" | "requests" | "dropped" | "vus">;

/** A second not closed yet: what the workers sent for it so far, merged. */
export interface OpenSecond {
  stats: StatsAggregate;
  vus: number;
}

/** A run's seconds not closed yet, by second. */
export class OpenSeconds {
  private readonly seconds = new Map<number, OpenSecond>();

  /** From a checkpoint's open seconds; any past `maxSecond` (written before batches were bounded) is dropped. */
  constructor(states: readonly OpenSecondState[], maxSecond: number) {
    for (const state of states) {
      if (state.second > maxSecond) continue;
      const stats = new StatsAggregate();
      stats.add(state.requests, state.dropped);
      this.seconds.set(state.second, { stats, vus: state.vus });
    }
  }

  get size(): number {
    return this.seconds.size;
  }

  numbers(): number[] {
    return [...this.seconds.keys()];
  }

  add(batch: SecondMeasurements, histograms?: DecodedHistograms): void {
    let second = this.seconds.get(batch.second);
    if (!second) {
      second = { stats: new StatsAggregate(), vus: 0 };
      this.seconds.set(batch.second, second);
    }
    second.stats.add(batch.requests, batch.dropped, histograms);
    second.vus += batch.vus;
  }

  /** Takes a second out to close it (empty when no batch described it). */
  take(second: number): OpenSecond {
    const entry = this.seconds.get(second);
    this.seconds.delete(second);
    return entry ?? { stats: new StatsAggregate(), vus: 0 };
  }

  /** The checkpoint's view of the open seconds. */
  state(): OpenSecondState[] {
    return [...this.seconds].map(([second, entry]) => ({
      second,
      vus: entry.vus,
      dropped: entry.stats.dropped,
      requests: entry.stats.toStats(),
    }));
  }
}
