import { Partition, type PartitionStep, parseScenario } from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import { SliceEngine, type SlicePeriod } from "../runner/slice-engine.js";

/** Runs a scenario in this thread (no worker threads) and returns its periods and merged stats. */
export async function runSlice(scenario: unknown, steps: PartitionStep[] = [], startInMs = 20) {
  const periods: SlicePeriod[] = [];
  const engine = new SliceEngine({
    scenario: parseScenario(scenario),
    partition: new Partition(steps),
    startAtEpochMs: Date.now() + startInMs,
    workerName: "test-worker",
    onPeriod: (period) => periods.push(period),
  });
  const started = Date.now();
  await engine.run();
  const aggregate = new StatsAggregate();
  for (const period of periods) aggregate.add(period.requests, period.dropped);
  return { periods, aggregate, engine, elapsedMs: Date.now() - started };
}
