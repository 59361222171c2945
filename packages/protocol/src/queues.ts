/** BullMQ names shared by the workers (producers) and the master (consumer). */
export const STATS_QUEUE = "volley-stats";
export const STATS_JOB = "stats-batch";
/**
 * Default key prefix of every Volley key in Redis. Installations sharing one Redis use different
 * prefixes (master option `queuePrefix`, env VOLLEY_QUEUE_PREFIX); workers learn it from the master.
 */
export const REDIS_PREFIX = "volley";

/** Job id that makes a re-sent batch collapse onto the first while it waits in the queue. */
export function statsJobId(runId: string, workerId: string, seq: number): string {
  return `${runId}.${workerId}.${seq}`;
}
