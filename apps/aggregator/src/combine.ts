import { type CombinedBatch, type CoveredBatch, isRequestMethod, type StatsBatch } from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";

/** What the master tracks of one worker batch, without its measurements. */
export function coverOf(batch: StatsBatch): CoveredBatch {
  let requests = 0;
  // Group runs, checks and script errors are not requests (the master counts them the same way).
  for (const stats of batch.requests) if (isRequestMethod(stats.method)) requests += stats.requests;
  return {
    workerId: batch.workerId,
    seq: batch.seq,
    final: batch.final,
    vus: batch.vus,
    lostBatches: batch.lostBatches,
    elapsedMs: batch.elapsedMs,
    requests,
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
