import { aggregatorAppendedKey, aggregatorStreamKey, type StatsBatch } from "@volley/protocol";
import type { Redis } from "ioredis";

// Appends the batch unless this worker's seq for the run is not past the last one appended: the
// publisher sends in order and retries only what was not confirmed, so a retry whose first
// attempt landed is recognised here, in the same step as the append.
const APPEND = `
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= last then return 0 end
redis.call('XADD', KEYS[1], '*', 'batch', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], 172800)
return 1`;

/**
 * Appends a batch to an aggregator partition's stream, once: true when appended, false when this
 * seq (or a later one) of the worker was appended before.
 */
export async function appendToPartition(
  redis: Redis,
  prefix: string,
  partition: string,
  batch: StatsBatch,
): Promise<boolean> {
  const appended = await redis.eval(
    APPEND,
    2,
    aggregatorStreamKey(prefix, partition),
    aggregatorAppendedKey(prefix, batch.runId),
    batch.workerId,
    batch.seq,
    JSON.stringify(batch),
  );
  return appended === 1;
}
