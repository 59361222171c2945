import { isRequestMethod, type RequestStats } from "@volley/protocol";
import type { ScenarioSeries } from "./scenario-series.js";
import { SCENARIO_ROW_PREFIX } from "./second-rows.js";

/** Requests and failures that reached a second after it was closed, for one row of that second. */
export interface LateCounts {
  name: string;
  second: number;
  requests: number;
  failures: number;
}

/**
 * Late counts waiting for the next checkpoint, summed per (row name, second): the checkpoint adds
 * them to the rows already written, so a late batch changes its second's figures exactly once.
 */
export class PendingLateCounts {
  private byKey = new Map<string, LateCounts>();

  add(name: string, second: number, requests: number, failures: number): void {
    const key = `${name}\u0000${second}`;
    const entry = this.byKey.get(key);
    if (entry) {
      entry.requests += requests;
      entry.failures += failures;
    } else {
      this.byKey.set(key, { name, second, requests, failures });
    }
  }

  /**
   * What a batch that came after its second closed adds to that second's rows: each request's,
   * the run's (requests only: group runs, checks and script errors are not) and each scenario's.
   */
  addBatch(batch: { second: number; requests: RequestStats[] }, scenarioSeries: ScenarioSeries): void {
    let requests = 0;
    let failures = 0;
    for (const stats of batch.requests) {
      this.add(stats.name, batch.second, stats.requests, stats.failures);
      if (!isRequestMethod(stats.method)) continue;
      requests += stats.requests;
      failures += stats.failures;
    }
    this.add("", batch.second, requests, failures);
    for (const [name, late] of scenarioSeries.lateCounts(batch)) {
      this.add(SCENARIO_ROW_PREFIX + name, batch.second, late.requests, late.failures);
    }
  }

  /** Everything pending, which is pending no more. */
  take(): LateCounts[] {
    const taken = [...this.byKey.values()];
    this.byKey = new Map();
    return taken;
  }

  /** Puts back what a failed checkpoint did not write. */
  restore(counts: readonly LateCounts[]): void {
    for (const late of counts) this.add(late.name, late.second, late.requests, late.failures);
  }
}
