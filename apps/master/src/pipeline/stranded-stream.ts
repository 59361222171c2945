import {
  aggregatorIntakesKey,
  aggregatorStreamKey,
  formatIssues,
  redisUrlSchema,
  statsBatchSchema,
} from "@volley/protocol";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { BatchIntake } from "./batch-intake.js";

/** Entries read per call. */
const CHUNK = 500;
/** Passes over the stream until one finds nothing of the run (workers may still append briefly). */
const QUIET_PASSES = 2;
const PASS_INTERVAL_MS = 1000;

export interface StrandedStreamOptions {
  redis: Redis;
  prefix: string;
  intake: BatchIntake;
  log: Logger;
}

/**
 * A run's batches left in the stream of an aggregator partition that died with no other to take
 * its place: the master reads them itself (as the partition's replacement would), merges each
 * (a batch merged twice is recognised by its seq, so a replacement that shows up meanwhile changes
 * nothing), and deletes what it merged. Without this, the only aggregator killed mid-run lost
 * everything its stream held and the run still ended "finished".
 */
export async function drainStrandedStream(
  options: StrandedStreamOptions,
  partition: string,
  runId: string,
): Promise<number> {
  const { prefix, intake, log } = options;
  const url = await options.redis.hget(aggregatorIntakesKey(prefix), partition).catch(() => null);
  const own = url === null || !redisUrlSchema.safeParse(url).success;
  const redis = own
    ? options.redis
    : new Redis(url as string, { maxRetriesPerRequest: 2, lazyConnect: false });
  const stream = aggregatorStreamKey(prefix, partition);
  let merged = 0;
  try {
    for (let quiet = 0; quiet < QUIET_PASSES; ) {
      const found = await pass(redis, stream, runId, intake, log);
      merged += found;
      if (found === 0) quiet++;
      else quiet = 0;
      await new Promise((resolve) => setTimeout(resolve, PASS_INTERVAL_MS));
    }
  } finally {
    if (!own) redis.disconnect();
  }
  if (merged > 0)
    log.warn({ runId, partition, batches: merged }, "batches left in a dead aggregator's stream merged");
  return merged;
}

/** One sweep over the stream: the run's entries merged and deleted; how many there were. */
async function pass(
  redis: Redis,
  stream: string,
  runId: string,
  intake: BatchIntake,
  log: Logger,
): Promise<number> {
  let from = "-";
  let found = 0;
  for (;;) {
    const entries = (await redis.xrange(stream, from, "+", "COUNT", CHUNK)) as Array<[string, string[]]>;
    if (entries.length === 0) return found;
    const mine: Array<{ id: string; merge: Promise<unknown> }> = [];
    for (const [id, fields] of entries) {
      const at = fields.indexOf("batch");
      let json: unknown;
      try {
        json = at >= 0 && at % 2 === 0 ? JSON.parse(fields[at + 1]) : null;
      } catch {
        json = null;
      }
      const parsed = statsBatchSchema.safeParse(json);
      if (!parsed.success) {
        if ((json as { runId?: unknown } | null)?.runId === runId) {
          log.warn(
            { runId, entry: id, details: formatIssues(parsed.error)[0]?.message },
            "malformed stranded batch dropped",
          );
          mine.push({ id, merge: Promise.resolve() });
        }
        continue;
      }
      if (parsed.data.runId !== runId) continue;
      mine.push({ id, merge: intake.submit(parsed.data) });
    }
    const outcomes = await Promise.allSettled(mine.map((m) => m.merge));
    const done = mine.filter((_, i) => outcomes[i].status === "fulfilled").map((m) => m.id);
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === "rejected") {
        log.warn(
          { runId, entry: mine[i].id, err: (outcome.reason as Error).message },
          "stranded batch not merged",
        );
      }
    }
    if (done.length > 0) await redis.xdel(stream, ...done);
    found += mine.length;
    const last = entries[entries.length - 1][0];
    from = `(${last}`;
  }
}
