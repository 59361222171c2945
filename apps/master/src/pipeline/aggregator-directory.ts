import {
  AGGREGATOR_STALE_MS,
  aggregatorIntakesKey,
  aggregatorsKey,
  partitionIdSchema,
  redisUrlSchema,
} from "@volley/protocol";
import type { Redis } from "ioredis";

/** Live partitions, sorted, each with the Redis of its stream (null: the master's). */
export type LiveAggregators = Map<string, string | null>;

/**
 * The aggregators that beat in Redis lately: where a run's workers can send their batches. Read
 * at most once a second (the routing needs nothing fresher).
 */
export class AggregatorDirectory {
  private cached: { at: number; live: LiveAggregators } | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly staleMs = AGGREGATOR_STALE_MS,
  ) {}

  /** Live partitions; empty when none beats (or Redis does not answer: route straight). */
  async live(now = Date.now()): Promise<LiveAggregators> {
    if (this.cached && now - this.cached.at < 1000) return this.cached.live;
    const [partitions, intakes] = await Promise.all([
      this.redis.zrangebyscore(aggregatorsKey(this.prefix), now - this.staleMs, "+inf"),
      this.redis.hgetall(aggregatorIntakesKey(this.prefix)),
    ]).catch(() => [[] as string[], {} as Record<string, string>] as const);
    // Only what a worker will take in a start-run: anything else in Redis is not an aggregator's.
    const valid = partitions.filter((p) => partitionIdSchema.safeParse(p).success).sort();
    const intake = (p: string) => (redisUrlSchema.safeParse(intakes[p]).success ? intakes[p] : null);
    const live: LiveAggregators = new Map(valid.map((p) => [p, intake(p)]));
    this.cached = { at: now, live };
    return live;
  }
}

/**
 * Routes workers over the live partitions, each to the one with the fewest of the run's workers
 * so far (`current`: the routes already taken). Null for every worker when no aggregator lives.
 */
export function routeWorkers(
  workerIds: readonly string[],
  live: LiveAggregators,
  current: Iterable<string | null> = [],
): Map<string, string | null> {
  const routes = new Map<string, string | null>();
  const load = new Map([...live.keys()].map((p) => [p, 0]));
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

/** The fields of a start-run or stats-route message that route a worker's batches. */
export function routeFields(
  aggregator: string | null,
  live: LiveAggregators,
): { aggregator?: string; aggregatorRedis?: string } {
  if (aggregator === null) return {};
  const redis = live.get(aggregator) ?? null;
  return redis === null ? { aggregator } : { aggregator, aggregatorRedis: redis };
}
