import { AGGREGATOR_STALE_MS, aggregatorsKey } from "@volley/protocol";
import type { Redis } from "ioredis";

/**
 * The aggregators that beat in Redis lately: where a run's workers can send their batches. Read
 * at most once a second (the routing needs nothing fresher).
 */
export class AggregatorDirectory {
  private cached: { at: number; partitions: string[] } | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly staleMs = AGGREGATOR_STALE_MS,
  ) {}

  /** Live partitions, sorted; empty when none beats (or Redis does not answer: route straight). */
  async live(now = Date.now()): Promise<string[]> {
    if (this.cached && now - this.cached.at < 1000) return this.cached.partitions;
    const partitions = await this.redis
      .zrangebyscore(aggregatorsKey(this.prefix), now - this.staleMs, "+inf")
      .catch(() => [] as string[]);
    partitions.sort();
    this.cached = { at: now, partitions };
    return partitions;
  }
}

/**
 * Routes workers over the live partitions, each to the one with the fewest of the run's workers
 * so far (`current`: the routes already taken). Null for every worker when no aggregator lives.
 */
export function routeWorkers(
  workerIds: readonly string[],
  live: readonly string[],
  current: Iterable<string | null> = [],
): Map<string, string | null> {
  const routes = new Map<string, string | null>();
  const load = new Map(live.map((p) => [p, 0]));
  for (const partition of current)
    if (partition !== null && load.has(partition)) load.set(partition, (load.get(partition) ?? 0) + 1);
  for (const workerId of workerIds) {
    let best: string | null = null;
    for (const [partition, count] of load)
      if (best === null || count < (load.get(best) ?? 0)) best = partition;
    routes.set(workerId, best);
    if (best !== null) load.set(best, (load.get(best) ?? 0) + 1);
  }
  return routes;
}
