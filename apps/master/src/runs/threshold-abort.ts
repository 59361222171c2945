import type { ThresholdResult } from "@volley/protocol";
import { evaluateThresholds } from "@volley/stats";
import type { ActiveRun } from "./active-run.js";

/**
 * The first `abortOnFail` threshold the merged data so far breaks, or null. A threshold is judged
 * only once its `delayAbortEval` has passed and its metric has data (a latency with no request
 * yet is not a failure).
 */
export function brokenAbortThreshold(active: ActiveRun, now: number): ThresholdResult | null {
  const due = active.scenario.thresholdAborts.filter((a) => now - active.startAt >= a.delayMs);
  if (due.length === 0) return null;
  const rules = Object.fromEntries(due.map((a) => [a.key, active.scenario.thresholds[a.key]]));
  const results = evaluateThresholds(rules, active.aggregator.summary());
  return results.find((r) => r.actual !== null && !r.pass) ?? null;
}
