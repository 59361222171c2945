/** BullMQ names shared by the workers (producers) and the master (consumer). */
export const STATS_QUEUE = "volley-stats";
export const STATS_JOB = "stats-batch";
/** Key prefix of every Volley key in Redis. */
export const REDIS_PREFIX = "volley";

/** Job id that makes a re-sent batch collapse onto the first while it waits in the queue. */
export function statsJobId(runId: string, workerId: string, seq: number): string {
  return `${runId}.${workerId}.${seq}`;
}
