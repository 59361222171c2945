import type { RunAggregateRow, RunSecondRow } from "@volley/db";
import {
  isIterationStatsName,
  type MetricPoint,
  metricOfStatsName,
  type TimeseriesPoint,
} from "@volley/protocol";
import { metricPoint, type StatsAggregate } from "@volley/stats";
import { metricColumns } from "./metric-rows.js";
import type { ScenarioSeries } from "./scenario-series.js";
import { packSecondStats, SCENARIO_ROW_PREFIX, toPoint, toRow } from "./second-rows.js";

/** A second as it closes: its points for the live view and the rows that store it. */
export interface ClosedSecond {
  point: TimeseriesPoint;
  requests: Record<string, TimeseriesPoint>;
  scenarios: Record<string, TimeseriesPoint>;
  /** A script's custom metrics of the second. */
  metrics: Record<string, MetricPoint>;
  rows: RunSecondRow[];
}

/**
 * The run's point (with every request's statistics merged), each request's (with its merged
 * statistics packed: any window's summary is exact from these) and each scenario's, for one
 * closed second.
 */
export function closeSecond(
  runId: string,
  second: number,
  stats: StatsAggregate,
  vus: number,
  scenarioSeries: ScenarioSeries,
): ClosedSecond {
  const total = stats.total();
  const point = toPoint(second, total, vus);
  const requests: Record<string, TimeseriesPoint> = {};
  // The whole run's statistics too: the latency heatmap reads one row a second.
  const rows = [toRow(runId, "", point, total.requests > 0 ? packSecondStats(total) : null)];
  const metrics: Record<string, MetricPoint> = {};
  for (const aggregate of stats.list()) {
    const metric = metricOfStatsName(aggregate.name);
    if (metric) {
      const point = metricPoint(second, { ...metric, aggregate });
      metrics[metric.name] = point;
      rows.push(toRow(runId, aggregate.name, metricColumns(point, vus), packSecondStats(aggregate)));
      continue;
    }
    const namePoint = toPoint(second, aggregate, vus);
    // Iterations are stored (exact windows read them) but are no request's series.
    if (!isIterationStatsName(aggregate.name)) requests[aggregate.name] = namePoint;
    rows.push(toRow(runId, aggregate.name, namePoint, packSecondStats(aggregate)));
  }
  const scenarios = scenarioSeries.points(second, stats, vus);
  for (const [name, scenarioPoint] of Object.entries(scenarios)) {
    rows.push(toRow(runId, SCENARIO_ROW_PREFIX + name, scenarioPoint));
  }
  return { point, requests, scenarios, metrics, rows };
}

/** The run's cumulative statistics as stored, one row per name, in the scenario's order. */
export function aggregateRows(runId: string, cumulative: StatsAggregate, order: string[]): RunAggregateRow[] {
  return cumulative.list().map((a, merged) => ({
    runId,
    name: a.name,
    method: a.method,
    stats: JSON.stringify(a.toStats()),
    rank: rank(order, a.name, merged),
  }));
}

/** The scenario's order; after it, names it does not list in the order they were first merged. */
function rank(order: string[], name: string, merged: number): number {
  const index = order.indexOf(name);
  return index < 0 ? order.length + merged : index;
}
