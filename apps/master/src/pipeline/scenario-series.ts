import { isRequestMethod, type StatsBatch, type TimeseriesPoint, unscopedName } from "@volley/protocol";
import { RequestAggregate, type StatsAggregate } from "@volley/stats";
import { toPoint } from "./second-rows.js";

/**
 * Each of `scenarios:` as its own series: a closed second's requests of that scenario merged into
 * one point (histograms added, so its percentiles are exact). A run without parts has none.
 */
export class ScenarioSeries {
  /** @param scenarios the names of `scenarios:` (none for a run of one): a request is theirs by its scoped name. */
  constructor(private readonly scenarios: readonly string[]) {}

  private scenarioOf(name: string): string | undefined {
    return unscopedName(name, this.scenarios).scenario;
  }

  /** Each scenario's point of one closed second. */
  points(second: number, stats: StatsAggregate, vus: number): Record<string, TimeseriesPoint> {
    if (this.scenarios.length === 0) return {};
    const merged = new Map<string, RequestAggregate>();
    for (const aggregate of stats.list()) {
      const scenario = this.scenarioOf(aggregate.name);
      if (scenario === undefined || !isRequestMethod(aggregate.method)) continue;
      let into = merged.get(scenario);
      if (!into) {
        into = new RequestAggregate(scenario, "");
        merged.set(scenario, into);
      }
      into.addAggregate(aggregate);
    }
    return Object.fromEntries(
      [...merged].map(([name, aggregate]) => [name, toPoint(second, aggregate, vus)]),
    );
  }

  /** Requests and failures of a late batch, by scenario (its second's rows are corrected by these). */
  lateCounts(batch: Pick<StatsBatch, "requests">): Map<string, { requests: number; failures: number }> {
    const counts = new Map<string, { requests: number; failures: number }>();
    for (const stats of batch.requests) {
      const scenario = this.scenarioOf(stats.name);
      if (scenario === undefined || !isRequestMethod(stats.method)) continue;
      const entry = counts.get(scenario) ?? { requests: 0, failures: 0 };
      entry.requests += stats.requests;
      entry.failures += stats.failures;
      counts.set(scenario, entry);
    }
    return counts;
  }
}
