import { z } from "zod";

/** BullMQ names shared by the workers (producers) and the master (consumer). */
export const STATS_JOB = "stats-batch";
/**
 * Default key prefix of every Volley key in Redis. Installations sharing one Redis use different
 * prefixes (master option `queuePrefix`, env VOLLEY_QUEUE_PREFIX); workers learn it from the master.
 */
export const REDIS_PREFIX = "volley";

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
