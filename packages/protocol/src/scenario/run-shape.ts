import { peakVus, peakVusField, plannedDurationMs } from "./load.js";
import type { Scenario } from "./scenario.js";

/** What a run as a whole looks like, over all its parts (one, or each of `scenarios:`). */

/** VUs at most at once: every part's peak (the parts run side by side). */
export function runPeakVus(scenario: Scenario): number {
  return scenario.parts.reduce((sum, part) => sum + peakVus(part.load), 0);
}

/** The field a run's VU count comes from, for error messages. */
export function runPeakVusField(scenario: Scenario): string {
  return scenario.parts.length === 1 ? peakVusField(scenario.parts[0].load) : "scenarios";
}

/** The longest part's planned length. */
export function runPlannedMs(scenario: Scenario): number {
  return Math.max(...scenario.parts.map((part) => plannedDurationMs(part.load)));
}

/** The longest graceful stop of any part. */
export function runGracefulStopMs(scenario: Scenario): number {
  return Math.max(...scenario.parts.map((part) => part.load.gracefulStop));
}

/** The executor, or how many scenarios run side by side. */
export function runExecutorLabel(scenario: Scenario): string {
  return scenario.parts.length === 1 ? scenario.parts[0].load.executor : `${scenario.parts.length} scenarios`;
}
