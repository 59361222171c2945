import type { RunDetail, RunListItem, TimeseriesPoint } from "../api/runs.js";
import type { WorkerInfo } from "../api/worker-info.js";
import type { MetricPoint } from "../stats/custom-metrics.js";
import type { RunSummary } from "../stats/summary.js";
import type { LoadChangeRecord } from "./change-load.js";

/** One merged second of a run in progress, as `/ws/live` pushes it (each names its run). */
export interface LiveSecond {
  type: "run-second";
  runId: string;
  point: TimeseriesPoint;
  requests: Record<string, TimeseriesPoint>;
  /** Each of `scenarios:` (its requests merged), when the run has them. */
  scenarios: Record<string, TimeseriesPoint>;
  /** A script's own metrics of the second. */
  metrics: Record<string, MetricPoint>;
  /** Everything merged so far. */
  summary: RunSummary;
  elapsedS: number;
  /** Each worker's requests so far and its part's state. */
  workers: Array<{ workerId: string; requests: number; status: "running" | "finished" | "lost" }>;
}

export interface LiveState {
  type: "state";
  workers: WorkerInfo[];
  /** The runs in progress (runs on disjoint workers run at once), oldest first, each with its seconds merged so far. */
  runs: Array<{ run: RunDetail; points: TimeseriesPoint[] }>;
  /** Runs waiting for their workers, first in line first. */
  queued: RunListItem[];
  serverTime: number;
}

export interface LiveWorkers {
  type: "workers";
  workers: WorkerInfo[];
}

export interface LiveRunStatus {
  type: "run-status";
  run: RunListItem;
}

/** A run's load was changed (`PATCH /api/runs/:id/load`): every change so far. */
export interface LiveRunLoad {
  type: "run-load";
  runId: string;
  loadChanges: LoadChangeRecord[];
}

/** Everything the master pushes on `/ws/live` (the dashboard only reads). */
export type LiveMessage = LiveState | LiveWorkers | LiveRunStatus | LiveSecond | LiveRunLoad;
