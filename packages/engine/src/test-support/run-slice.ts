import { type LoadChange, Partition, type PartitionStep, parseScenario } from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import { SliceEngine, type SlicePeriod } from "../runner/slice-engine.js";

/** The HTTP/1.1 client engine tests run on: each suite runs once per client. */
export const HTTP_CLIENTS = ["volley", "undici"] as const;
let client: (typeof HTTP_CLIENTS)[number] = "volley";

/** Sets the client every following `runSlice` uses (unless a scenario names one). */
export function useHttpClient(next: (typeof HTTP_CLIENTS)[number]): void {
  client = next;
}

/**
 * Runs a scenario in this thread (no worker threads) and returns its periods and merged stats;
 * `loadChanges` are handed to the engine before it starts, as if the master sent them.
 */
export async function runSlice(
  scenario: unknown,
  steps: PartitionStep[] = [],
  startInMs = 20,
  loadChanges: LoadChange[] = [],
) {
  const periods: SlicePeriod[] = [];
  const written = scenario as { http?: Record<string, unknown> };
  const engine = new SliceEngine({
    scenario: parseScenario({ ...written, http: { client, ...written.http } }),
    partition: new Partition(steps),
    startAtEpochMs: Date.now() + startInMs,
    workerName: "test-worker",
    onPeriod: (period) => periods.push(period),
  });
  for (const change of loadChanges) engine.changeLoad(change);
  const started = Date.now();
  await engine.run();
  const aggregate = new StatsAggregate();
  for (const period of periods) aggregate.add(period.requests, period.dropped);
  return { periods, aggregate, engine, elapsedMs: Date.now() - started };
}
