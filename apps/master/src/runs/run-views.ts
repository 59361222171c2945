import type { RunAggregateRow, RunRow, RunSecondRow, RunWorkerRow } from "@volley/db";
import {
  isIterationStatsName,
  metricOfStatsName,
  onRunSeconds,
  type RunDetail,
  type RunListItem,
  type RunStatus,
  type RunSummary,
  type RunWorkerInfo,
  type SaturationWarning,
  type Timeseries,
  type TimeseriesPoint,
  trustOf,
  unscopedName,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";
import { cumulativeFromRows } from "../pipeline/merge-state.js";
import { metricPointOfRow } from "../pipeline/metric-rows.js";
import { SCENARIO_ROW_PREFIX } from "../pipeline/second-rows.js";
import { runColumns } from "./run-columns.js";

/** A run's summary from its stored aggregates (finished runs, or any run after a restart). */
export function summaryFromRows(run: RunRow, aggregates: RunAggregateRow[]): RunSummary {
  return cumulativeFromRows(run, aggregates).summarize(
    run.durationS ?? 0,
    aggregates.map((a) => a.name),
  );
}

/** A finished run's summary from its merged statistics (in the order they were stored). */
export function summaryFromStats(run: RunRow, stats: StatsAggregate): RunSummary {
  return stats.summarize(
    run.durationS ?? 0,
    stats.list().map((a) => a.name),
  );
}

export function toListItem(run: RunRow): RunListItem {
  return {
    id: run.id,
    name: run.name,
    status: run.status as RunStatus,
    executor: run.executor,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    durationS: run.durationS,
    requests: run.requests,
    failures: run.failures,
    rps: Math.round(run.rps * 100) / 100,
    p95: run.p95Ms === null ? null : Math.round(run.p95Ms * 1000) / 1000,
    errorRate: run.requests ? run.failures / run.requests : 0,
    passed: run.passed,
    stopReason: run.stopReason,
    pinned: run.pinned,
  };
}

export function toWorkerInfo(
  row: RunWorkerRow,
  totalRequests: number,
  live?: { peakVus: number; peakCpu: number; peakEventLoopDelayMs: number },
): RunWorkerInfo {
  return {
    workerId: row.workerId,
    name: row.name,
    host: row.host,
    threads: row.threads,
    // Its planned share, or more once the load was raised past it.
    vus: Math.max(row.vus, live?.peakVus ?? 0),
    requests: row.requests,
    share: totalRequests ? row.requests / totalRequests : 0,
    peakCpu: Math.max(row.peakCpu, live?.peakCpu ?? 0),
    peakEventLoopDelayMs: Math.max(row.peakEventLoopDelayMs, live?.peakEventLoopDelayMs ?? 0),
    status: row.status as RunWorkerInfo["status"],
    lostBatches: row.lostBatches,
  };
}

export function toDetail(
  run: RunRow,
  summary: RunSummary,
  workers: RunWorkerInfo[],
  warnings: SaturationWarning[],
): RunDetail {
  const detail: Omit<RunDetail, "trust"> = {
    id: run.id,
    name: run.name,
    status: run.status as RunStatus,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    scenario: runColumns.scenarioInput(run),
    workers,
    summary,
    thresholds: runColumns.thresholds(run),
    passed: run.passed,
    error: run.error,
    stopReason: run.stopReason,
    startedBy: run.startedBy,
    stoppedBy: run.stoppedBy,
    warnings,
    plannedDurationS: run.plannedDurationMs / 1000,
    loadChanges: runColumns.loadChanges(run),
  };
  return { ...detail, trust: trustOf(detail) };
}

export function toTimeseries(rows: ReadonlyArray<Omit<RunSecondRow, "stats">>): Timeseries {
  const series: Timeseries = { overall: [], requests: {}, scenarios: {} };
  for (const row of rows) {
    const point: TimeseriesPoint = {
      t: row.second,
      rps: row.requests,
      errorsPerSec: row.failures,
      vus: row.vus,
      p50: row.p50Ms,
      p95: row.p95Ms,
      p99: row.p99Ms,
    };
    const metric = metricOfStatsName(row.name);
    if (metric) {
      series.metrics ??= {};
      series.metrics[metric.name] ??= [];
      series.metrics[metric.name].push(metricPointOfRow(row, metric.kind));
    } else if (row.name === "") series.overall.push(point);
    else if (row.name.startsWith(SCENARIO_ROW_PREFIX)) {
      const name = row.name.slice(SCENARIO_ROW_PREFIX.length);
      series.scenarios[name] ??= [];
      series.scenarios[name].push(point);
    } else if (!isIterationStatsName(row.name)) {
      series.requests[row.name] ??= [];
      series.requests[row.name].push(point);
    }
  }
  return series;
}

/** One scenario's series: its merged points on the run's seconds as `overall`, only its requests. */
export function scenarioTimeseries(
  series: Timeseries,
  scenario: string,
  scenarios: readonly string[],
): Timeseries {
  const overall = onRunSeconds(series.overall, series.scenarios[scenario] ?? []);
  const requests = Object.fromEntries(
    Object.entries(series.requests).filter(([name]) => unscopedName(name, scenarios).scenario === scenario),
  );
  return { overall, requests, scenarios: {} };
}
