import { plannedDurationMs, type Scenario } from "@volley/protocol";
import type { RunAggregator } from "../pipeline/run-aggregator.js";
import { SaturationTracker } from "./saturation-tracker.js";

/** What the scheduler keeps about the run in progress. */
export interface ActiveRun {
  id: string;
  scenario: Scenario;
  startAt: number;
  deadline: number;
  aggregator: RunAggregator;
  saturation: SaturationTracker;
  /** When each worker of the run was last seen connected and in this run. */
  seen: Map<string, number>;
  rejected: Map<string, string>;
  stopReason: string | null;
  finishing: boolean;
}

export function newActiveRun(
  id: string,
  scenario: Scenario,
  startAt: number,
  aggregator: RunAggregator,
  overrunMs: number,
): ActiveRun {
  return {
    id,
    scenario,
    startAt,
    // Past this the run is told to stop; past it plus overrunMs its silent workers are lost.
    deadline: startAt + plannedDurationMs(scenario.load) + scenario.load.gracefulStop + overrunMs,
    aggregator,
    saturation: new SaturationTracker(startAt),
    seen: new Map(aggregator.workerList().map((w) => [w.workerId, Date.now()])),
    rejected: new Map(),
    stopReason: null,
    finishing: false,
  };
}
