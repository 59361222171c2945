import type { SaturationWarning } from "@volley/protocol";
import type { AggregatorWorker } from "../pipeline/merge-state.js";
import type { ActiveRun } from "./active-run.js";
import { statsWarnings } from "./stats-warnings.js";

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

/** Workers' seconds may be shifted against each other by more than this before it is said. */
export const CLOCK_SKEW_LIMIT_MS = 10;

/**
 * A warning when the workers' clocks may disagree by more than CLOCK_SKEW_LIMIT_MS: each worker
 * knows the master's clock to half its best round trip, so two workers' seconds can be shifted
 * by up to the sum of their two largest uncertainties. One worker alone has nothing to disagree with.
 */
export function clockSkewWarning(
  uncertainty: ReadonlyMap<string, { name: string; ms: number }>,
): SaturationWarning | null {
  const worst = [...uncertainty.entries()].sort((a, b) => b[1].ms - a[1].ms);
  if (worst.length < 2) return null;
  const skew = worst[0][1].ms + worst[1][1].ms;
  if (skew <= CLOCK_SKEW_LIMIT_MS) return null;
  const [workerId, { name, ms }] = worst[0];
  return {
    kind: "clock-skew",
    workerId,
    workerName: name,
    fromS: 0,
    toS: 0,
    peakCpu: 0,
    peakEventLoopDelayMs: 0,
    message: `the workers' clocks may disagree by up to ${skew.toFixed(0)} ms (${name} knows the master's clock to ±${ms.toFixed(0)} ms): per-second figures of different workers may be shifted against each other; totals and percentiles are unaffected`,
  };
}

/**
 * Every warning of a run, live or final: its workers' (lost, refused, lost batches), a clock
 * skew between them, the load generator's saturation spans, and what the merged statistics say
 * (iterations skipped, requests not awaited).
 */
export function runWarnings(
  active: Pick<ActiveRun, "rejected" | "clockUncertainty" | "saturation" | "aggregator">,
  workers: readonly AggregatorWorker[],
  totalRequests: number,
  durationS: number,
): SaturationWarning[] {
  const skew = clockSkewWarning(active.clockUncertainty);
  return [
    ...workerWarnings(workers, active.rejected, totalRequests, durationS),
    ...(skew ? [skew] : []),
    ...active.saturation.warnings(),
    ...statsWarnings(active.aggregator.cumulative),
  ];
}
