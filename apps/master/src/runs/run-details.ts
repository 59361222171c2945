import type { Database } from "@volley/db";
import {
  parseScenario,
  type RunDetail,
  type RunSummary,
  requestName,
  type SaturationWarning,
  type Scenario,
} from "@volley/protocol";
import { workerStatus } from "../pipeline/run-aggregator.js";
import type { ActiveRun } from "./active-run.js";
import { summaryFromRows, toDetail, toWorkerInfo } from "./run-views.js";
import { workerWarnings } from "./worker-warnings.js";

/** A run's report: from the live aggregator while it runs, from the database after. */
export async function runDetail(
  db: Database,
  runId: string,
  active: ActiveRun | null,
): Promise<RunDetail | null> {
  const run = await db.runs.get(runId);
  if (!run) return null;
  const resolved = withFlows(
    active ? active.aggregator.summary() : summaryFromRows(run, await db.aggregates.list(runId)),
    active?.scenario ?? parseScenario(JSON.parse(run.scenario)),
  );
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
