import { DISTRIBUTION_PERCENTILES, type DistributionPoint, isRequestMethod } from "@volley/protocol";
import type { RequestAggregate } from "./request-aggregate.js";
import type { StatsAggregate } from "./stats-aggregate.js";

/** One aggregate's latency at every distribution percentile (none when it measured nothing). */
export function distributionOf(aggregate: RequestAggregate): DistributionPoint[] {
  if (aggregate.requests === 0) return [];
  return DISTRIBUTION_PERCENTILES.map((p) => ({ p, ms: Math.round(aggregate.percentileUs(p)) / 1000 }));
}

/** The whole run's distribution and each request's, from the run's merged statistics. */
export function latencyDistribution(stats: StatsAggregate): {
  total: DistributionPoint[];
  requests: Record<string, DistributionPoint[]>;
} {
  const requests: Record<string, DistributionPoint[]> = {};
  for (const aggregate of stats.list()) {
    if (isRequestMethod(aggregate.method) && aggregate.requests > 0)
      requests[aggregate.name] = distributionOf(aggregate);
  }
  return { total: distributionOf(stats.total()), requests };
}
