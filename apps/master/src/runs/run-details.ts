import type { Database } from "@volley/db";
import {
  parseScenario,
  type RunDetail,
  type RunSummary,
  requestName,
  type SaturationWarning,
  type Scenario,
  scenarioRequestNames,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";
import { cumulativeFromRows } from "../pipeline/merge-state.js";
import { workerStatus } from "../pipeline/run-aggregator.js";
import type { ActiveRun } from "./active-run.js";
import { summaryFromStats, toDetail, toWorkerInfo } from "./run-views.js";
import { workerWarnings } from "./worker-warnings.js";

/** A run's report: from the live aggregator while it runs, from the database after. */
export async function runDetail(
  db: Database,
  runId: string,
  active: ActiveRun | null,
): Promise<RunDetail | null> {
  const run = await db.runs.get(runId);
  if (!run) return null;
  const scenario = active?.scenario ?? parseScenario(JSON.parse(run.scenario));
  const stats = active
    ? active.aggregator.cumulative
    : cumulativeFromRows(run, await db.aggregates.list(runId));
  const summary = active ? active.aggregator.summary() : summaryFromStats(run, stats);
  const resolved = withScenarios(withFlows(summary, scenario), scenario, stats);
  const rows = await db.runWorkers.list(runId);
  // While the run is active, the aggregator knows each worker's figures better than the rows.
  const live = new Map(active?.aggregator.workerList().map((w) => [w.workerId, w]) ?? []);
  const total = resolved.total.requests;
  const workers = rows.map((row) => {
    const worker = live.get(row.workerId);
    const current = worker
      ? { ...row, requests: worker.requests, lostBatches: worker.lostBatches, status: workerStatus(worker) }
      : row;
    return toWorkerInfo(current, total, active?.saturation.peaks(row.workerId));
  });
  const warnings = active
    ? [
        ...workerWarnings(active.aggregator.workerList(), active.rejected, total, resolved.durationS),
        ...active.saturation.warnings(),
      ]
    : (JSON.parse(run.warnings) as SaturationWarning[]);
  return toDetail(run, resolved, workers, warnings);
}

/** Totals of each of `scenarios:`, from the merged statistics of its requests. */
function withScenarios(summary: RunSummary, scenario: Scenario, stats: StatsAggregate): RunSummary {
  const parts = scenarioRequestNames(scenario);
  if (parts.length === 0) return summary;
  const scenarios = parts.map((part) => ({
    name: part.name,
    ...stats.totalsOf(part.requests, summary.durationS),
  }));
  return { ...summary, scenarios };
}

/** Names each request's flow and scenario (of `scenarios:`), when it has them. */
function withFlows(summary: RunSummary, scenario: Scenario): RunSummary {
  const labelled = scenario.requests.flatMap((r, i) => {
    const flow = scenario.requestFlows[i] ?? undefined;
    const part = scenario.requestScenarios[i] ?? undefined;
    return flow || part ? [[requestName(r), { flow, scenario: part }] as const] : [];
  });
  if (labelled.length === 0) return summary;
  const labels = new Map(labelled);
  return { ...summary, requests: summary.requests.map((r) => ({ ...r, ...labels.get(r.name) })) };
}
