import { type CombinedBatch, type CoveredBatch, requestCount, type StatsBatch } from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";

/** What the master tracks of one worker batch, without its measurements. */
export function coverOf(batch: StatsBatch): CoveredBatch {
  return {
    workerId: batch.workerId,
    seq: batch.seq,
    final: batch.final,
    vus: batch.vus,
    lostBatches: batch.lostBatches,
    elapsedMs: batch.elapsedMs,
    requests: requestCount(batch.requests),
  };
}

/** One group's combined batch: its batches' measurements (merged in `stats`) and what it covers. */
export function combineBatches(
  group: { runId: string; partition: string; group: string; second: number },
  batches: readonly StatsBatch[],
  stats: StatsAggregate,
): CombinedBatch {
  let vus = 0;
  for (const batch of batches) vus += batch.vus;
  return {
    ...group,
    covers: batches.map(coverOf),
    vus,
    dropped: stats.dropped,
    requests: stats.toStats(),
    sentAt: Date.now(),
  };
}
