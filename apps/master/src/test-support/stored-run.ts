import type { Database, NewRunSecond } from "@volley/db";
import {
  parseScenario,
  type RequestStats,
  recordedStatsNames,
  runExecutorLabel,
  type ScenarioInput,
  scenarioNames,
} from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import { aggregateRows, closeSecond } from "../pipeline/closed-second.js";
import { ScenarioSeries } from "../pipeline/scenario-series.js";
import { newRunId } from "../runs/run-id.js";

/** Rows written at once: well under SQLite's bound parameters per statement. */
const ROWS_PER_INSERT = 2000;

/**
 * A finished run written straight into a master's database, each second's rows and the run's
 * aggregates built by the pipeline's own `closeSecond` and `aggregateRows`: for tests of what an
 * hour of stored seconds looks like, without an hour of merging. Returns the run's id.
 */
export async function storeFinishedRun(
  db: Database,
  input: ScenarioInput,
  seconds: number,
  secondOf: (second: number) => RequestStats[],
): Promise<string> {
  const scenario = parseScenario(input);
  const id = newRunId();
  const startedAt = new Date(Date.now() - seconds * 1000);
  await db.runs.create({
    id,
    name: scenario.name,
    status: "finished",
    executor: runExecutorLabel(scenario),
    scenario: JSON.stringify(input),
    plannedDurationMs: seconds * 1000,
    startedAt,
  });
  const cumulative = new StatsAggregate();
  const series = new ScenarioSeries(scenarioNames(scenario));
  let rows: NewRunSecond[] = [];
  for (let second = 0; second < seconds; second++) {
    const requests = secondOf(second);
    const merged = new StatsAggregate();
    merged.add(requests);
    cumulative.add(requests);
    rows.push(...closeSecond(id, second, merged, 1, series).rows);
    if (rows.length >= ROWS_PER_INSERT || second === seconds - 1) {
      await db.seconds.insertMany(rows);
      rows = [];
    }
  }
  await db.aggregates.replace(id, aggregateRows(id, cumulative, recordedStatsNames(scenario)));
  const total = cumulative.total();
  await db.runs.update(id, {
    finishedAt: new Date(),
    closedThrough: seconds - 1,
    durationS: seconds,
    requests: total.requests,
    failures: total.failures,
    rps: total.requests / seconds,
    p95Ms: total.percentileUs(95) / 1000,
    thresholds: "[]",
  });
  return id;
}
