import type { SaturationWarning } from "@volley/protocol";
import type { AggregatorWorker } from "../pipeline/merge-state.js";

/**
 * Warnings about the workers of a run that make its figures incomplete: one that was lost (its
 * last seconds are missing), one that refused the run (the load ran without its share), one
 * that dropped batches while Redis was away. Each says what it means for the figures.
 */
export function workerWarnings(
  workers: readonly AggregatorWorker[],
  rejected: ReadonlyMap<string, string>,
  totalRequests: number,
  durationS: number,
): SaturationWarning[] {
  const warnings: SaturationWarning[] = [];
  const base = { peakCpu: 0, peakEventLoopDelayMs: 0 };
  for (const worker of workers) {
    const why = rejected.get(worker.workerId);
    if (why !== undefined) {
      warnings.push({
        ...base,
        kind: "worker-refused",
        workerId: worker.workerId,
        workerName: worker.name,
        fromS: 0,
        toS: 0,
        message: `${worker.name} refused the run (${why}): the load ran without its share of the VUs`,
      });
      continue;
    }
    if (worker.lost) {
      const lastS = worker.received.contiguousBelow;
      const share = totalRequests > 0 ? worker.requests / totalRequests : 0;
      warnings.push({
        ...base,
        kind: "worker-lost",
        workerId: worker.workerId,
        workerName: worker.name,
        fromS: lastS,
        toS: Math.max(lastS, Math.ceil(durationS)),
        message:
          `${worker.name} was lost after ${lastS} s: what it sent later is missing from these figures ` +
          `(it had reported ${worker.requests.toLocaleString("en-US")} requests, ${(share * 100).toFixed(1)} % of the total)`,
      });
    }
    if (worker.lostBatches > 0) {
      warnings.push({
        ...base,
        kind: "lost-batches",
        workerId: worker.workerId,
        workerName: worker.name,
        fromS: 0,
        toS: 0,
        message: `${worker.name} dropped ${worker.lostBatches} seconds of statistics while Redis was away: those seconds are missing`,
      });
    }
  }
  return warnings;
}
