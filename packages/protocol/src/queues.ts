import { z } from "zod";

/** BullMQ names shared by the workers (producers) and the master (consumer). */
export const STATS_JOB = "stats-batch";
/**
 * Default key prefix of every Volley key in Redis. Installations sharing one Redis use different
 * prefixes (master option `queuePrefix`, env VOLLEY_QUEUE_PREFIX); workers learn it from the master.
 */
export const REDIS_PREFIX = "volley";

/** The Redis every component uses when none is named (REDIS_URL, a flag, or the master's word). */
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * The Redis URL a component uses: the one given, else REDIS_URL when it is set and not empty,
 * else the default. One rule for the master, workers, aggregators and the CLI.
 */
export function redisUrlOf(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return given || env.REDIS_URL || DEFAULT_REDIS_URL;
}

/**
 * How a stats batch is added to a run's queue, by a worker or an aggregator: kept until merged,
 * retried for ten minutes (the master may be restarting), a failed one kept for inspection.
 */
export const STATS_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: 1000,
  attempts: 300,
  backoff: { type: "fixed", delay: 2000 },
} as const;

/**
 * A run id as it travels between master and workers: it names the run's stats queue, so only
 * letters, digits, `-` and `_` (BullMQ reserves `:`).
 */
export const runIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, - or _");

/**
 * Each run has its own stats queue, consumed only by the master that owns the run: two masters
 * sharing a Redis (and a database) never take each other's batches.
 */
export function statsQueueName(runId: string): string {
  return `volley-stats.${runId}`;
}

/** Job id that makes a re-sent batch collapse onto the first while it waits in the queue. */
export function statsJobId(runId: string, workerId: string, seq: number): string {
  return `${runId}.${workerId}.${seq}`;
}

/** Job name of an aggregator's combined batch in a run's stats queue. */
export const COMBINED_JOB = "stats-combined";

/**
 * An aggregator partition's id: it names the partition's stream, so the same characters as a run
 * id. Every aggregator process started with the same `--partition` reads that stream (a
 * Deployment's replicas, a scaled compose service): one that dies leaves its entries to the others.
 */
export const partitionIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, - or _");

/**
 * The Redis stream workers routed through an aggregator append their batches to (every run's),
 * read by the partition's aggregators as one consumer group. A stream, not a BullMQ queue: its
 * consumers read and acknowledge hundreds of entries per call, where BullMQ takes a few Redis
 * scripts per job (bench/README.md, "Aggregators").
 */
export function aggregatorStreamKey(prefix: string, partition: string): string {
  return `${prefix}:volley-agg.${partition}`;
}

/** The consumer group of a partition's stream (every aggregator of the partition is in it). */
export const AGGREGATOR_GROUP = "aggregators";

/**
 * Redis hash of the last seq each worker appended to an aggregator stream, per run: a retried
 * append whose first attempt landed (its answer lost) is not appended twice.
 */
export function aggregatorAppendedKey(prefix: string, runId: string): string {
  return `${prefix}:agg:${runId}:appended`;
}

/** Job id of a combined batch: a group re-sent after a crash collapses onto the first copy. */
export function combinedJobId(runId: string, group: string): string {
  return `${runId}.agg.${group}`;
}

/**
 * Redis sorted set of live aggregators (member: partition id, score: last heartbeat, epoch ms),
 * under the installation's prefix. The master reads it to route workers.
 */
export function aggregatorsKey(prefix: string): string {
  return `${prefix}:aggregators`;
}

/**
 * Redis hash (member: partition id, value: Redis URL) of the partitions whose stream lives in a
 * Redis of their own (`volley aggregator --intake-redis`): their workers push there, so one
 * Redis does not carry every worker's batches.
 */
export function aggregatorIntakesKey(prefix: string): string {
  return `${prefix}:aggregator-intakes`;
}

/** A Redis URL as the master hands it to workers. */
export const redisUrlSchema = z
  .string()
  .max(500)
  .regex(/^rediss?:\/\/\S+$/, "must be a redis:// or rediss:// URL");

/** An aggregator that has not beaten for this long is taken for dead: no worker is routed to it. */
export const AGGREGATOR_STALE_MS = 10_000;
/** How often an aggregator beats. */
export const AGGREGATOR_BEAT_MS = 2_000;

/**
 * An aggregator's claims for one run (which group each worker batch belongs to, each group's
 * batches and combined batch, the groups sent on): kept in Redis so that whoever takes a dead
 * aggregator's batches over finds them. The master deletes them with the run's queue.
 */
export function aggregatorRunKeys(prefix: string, runId: string) {
  const base = `${prefix}:agg:${runId}`;
  return {
    claims: `${base}:claims`,
    groups: `${base}:groups`,
    payloads: `${base}:payloads`,
    sent: `${base}:sent`,
    next: `${base}:next`,
    appended: aggregatorAppendedKey(prefix, runId),
  };
}

/**
 * Set by the master once a run has its final status (before its queue and claims go): batches of
 * it still in a stream are dropped, not sent to a queue nobody reads.
 */
export function aggregatorEndedKey(prefix: string, runId: string): string {
  return `${prefix}:agg:${runId}:ended`;
}
