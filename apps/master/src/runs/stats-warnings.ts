import {
  LATE_START_METHOD,
  NOT_AWAITED_METHOD,
  notAwaitedAt,
  partOfIterationStats,
  type SaturationWarning,
  SKIPPED_METHOD,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";

const BASE = { workerId: "", workerName: "", fromS: 0, toS: 0, peakCpu: 0, peakEventLoopDelayMs: 0 };

/**
 * Warnings the run's merged statistics carry: planned iterations that could not start (a unique
 * feeder ran out, or they were due before a late thread began) and requests a script did not await (counted, but the script's iteration did
 * not wait for them), each with how many and, for the latter, where in the script.
 */
export function statsWarnings(stats: StatsAggregate): SaturationWarning[] {
  const warnings: SaturationWarning[] = [];
  for (const aggregate of stats.list()) {
    if (aggregate.method === SKIPPED_METHOD && aggregate.requests > 0) {
      const part = partOfIterationStats(aggregate.name);
      const count = aggregate.requests;
      warnings.push({
        ...BASE,
        kind: "skipped-iterations",
        count,
        message: `${count.toLocaleString("en-US")} planned iteration${count === 1 ? "" : "s"}${part ? ` of ${part}` : ""} did not run: a unique feeder ran out of rows (give it more rows, or fewer iterations)`,
      });
    } else if (aggregate.method === LATE_START_METHOD && aggregate.requests > 0) {
      const part = partOfIterationStats(aggregate.name);
      const count = aggregate.requests;
      const lateMs = Math.round(aggregate.maxUs / 1000);
      warnings.push({
        ...BASE,
        kind: "late-start",
        count,
        message: `${count.toLocaleString("en-US")} iteration${count === 1 ? " was" : "s were"}${part ? ` of ${part}` : ""} due before the workers' engine threads began (up to ${lateMs.toLocaleString("en-US")} ms after the scheduled start): dropped, not sent late and timed from their schedule (give the workers more time before the start, or fewer threads)`,
      });
    } else if (aggregate.method === NOT_AWAITED_METHOD && aggregate.requests > 0) {
      const at = notAwaitedAt(aggregate.name);
      const count = aggregate.requests;
      warnings.push({
        ...BASE,
        kind: "not-awaited",
        count,
        ...(at ? { at } : {}),
        message: `${count.toLocaleString("en-US")} request${count === 1 ? " was" : "s were"} not awaited${at ? ` at ${at}` : ""}: each was counted, but its iteration went on without its answer (add await, or use vu.http.batch for requests in parallel)`,
      });
    }
  }
  return warnings;
}
