import type { Database, RunRow } from "@volley/db";
import type { RunDetail } from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";
import { cumulativeFromRows, workerStatus } from "../pipeline/merge-state.js";
import { describeSummary } from "../pipeline/run-summary.js";
import type { ActiveRun } from "./active-run.js";
import { runColumns } from "./run-columns.js";
import { summaryFromStats, toDetail, toWorkerInfo } from "./run-views.js";
import { runWarnings } from "./worker-warnings.js";

/** A run's merged histograms and counters: the live aggregator's while it runs, the stored ones after. */
export async function runStats(
  db: Database,
  runId: string,
  active: ActiveRun | null,
): Promise<StatsAggregate | null> {
  const run = await db.runs.get(runId);
  return run ? statsOf(db, run, active) : null;
}

async function statsOf(db: Database, run: RunRow, active: ActiveRun | null): Promise<StatsAggregate> {
  return active ? active.aggregator.cumulative : cumulativeFromRows(run, await db.aggregates.list(run.id));
}

/** A run's report: from the live aggregator while it runs, from the database after. */
export async function runDetail(
  db: Database,
  runId: string,
  active: ActiveRun | null,
): Promise<RunDetail | null> {
  return (await runDetailAndStats(db, runId, active))?.detail ?? null;
}

/** A run's report with the merged statistics it was made from (read once, for readers of both). */
export async function runDetailAndStats(
  db: Database,
  runId: string,
  active: ActiveRun | null,
): Promise<{ detail: RunDetail; stats: StatsAggregate } | null> {
  const run = await db.runs.get(runId);
  if (!run) return null;
  const scenario = active?.scenario ?? runColumns.scenario(run);
  const stats = await statsOf(db, run, active);
  // The live aggregator describes its summary itself; a stored one is described here the same way.
  const resolved = active
    ? active.aggregator.summary()
    : describeSummary(summaryFromStats(run, stats), scenario, stats);
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
    ? runWarnings(active, active.aggregator.workerList(), total, resolved.durationS)
    : runColumns.warnings(run);
  const capacity = active?.capacity ? active.capacity.result() : runColumns.capacity(run);
  const detail = toDetail(run, capacity ? { ...resolved, capacity } : resolved, workers, warnings);
  return { detail: active ? { ...detail, now: active.aggregator.lastPoint } : detail, stats };
}
