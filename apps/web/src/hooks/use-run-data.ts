import {
  ACTIVE_RUN_STATUSES,
  type MetricPoint,
  type RunDetail,
  type RunSummary,
  type Timeseries,
  type TimeseriesPoint,
} from "@volley/protocol";
import { useEffect, useMemo } from "react";
import { useApi } from "../api/use-api.js";
import { useLive } from "../live/live-context.js";
import { liveSeries } from "../live/use-live-feed.js";

export const ACTIVE_STATUSES = new Set<string>(ACTIVE_RUN_STATUSES);

export interface RunData {
  run: RunDetail | null;
  summary: RunSummary | null;
  points: TimeseriesPoint[];
  requestPoints: Record<string, TimeseriesPoint[]>;
  /** Each of `scenarios:` as its own series (empty for a run without them). */
  scenarioPoints: Record<string, TimeseriesPoint[]>;
  /** A script's custom metrics, each second they were recorded. */
  metricPoints: Record<string, MetricPoint[]>;
  live: boolean;
  error: Error | null;
  loading: boolean;
  reload: () => void;
}

/**
 * A run as stored (details and time series from the API) plus, while it is active, every
 * second the live feed pushes. Reloads the stored report once the run ends.
 */
export function useRunData(id: string | null): RunData {
  const detail = useApi<RunDetail>(id ? `/api/runs/${id}` : null);
  const series = useApi<Timeseries>(id ? `/api/runs/${id}/timeseries` : null);
  const feed = useLive();
  const status = feed.lastStatus?.id === id ? feed.lastStatus.status : detail.data?.status;
  const live = status !== undefined && ACTIVE_STATUSES.has(status);
  const { reload: reloadDetail } = detail;
  const { reload: reloadSeries } = series;

  useEffect(() => {
    if (!feed.lastStatus || feed.lastStatus.id !== id) return;
    reloadDetail();
    if (!ACTIVE_STATUSES.has(feed.lastStatus.status)) reloadSeries();
  }, [feed.lastStatus, id, reloadDetail, reloadSeries]);

  // A rebalance adds workers to the run: the report lists them once it is fetched again.
  useEffect(() => {
    if (feed.runLoad?.runId === id && feed.runLoad.loadChanges.at(-1)?.workers !== undefined) reloadDetail();
  }, [feed.runLoad, id, reloadDetail]);

  // This run's own series: another run in progress at the same time has its own.
  const pushed = liveSeries(feed, id);
  const points = useMemo(
    () => mergePoints(series.data?.overall ?? [], pushed.points),
    [series.data, pushed.points],
  );
  const requestPoints = useMemo(
    () => mergeSeries(series.data?.requests, pushed.requestPoints),
    [series.data, pushed.requestPoints],
  );
  const scenarioPoints = useMemo(
    () => mergeSeries(series.data?.scenarios, pushed.scenarioPoints),
    [series.data, pushed.scenarioPoints],
  );
  const metricPoints = useMemo(
    () => mergeSeries(series.data?.metrics, pushed.metricPoints),
    [series.data, pushed.metricPoints],
  );

  const summary = live && pushed.summary ? pushed.summary : (detail.data?.summary ?? null);
  const runWorkers = pushed.runWorkers;
  const run = useMemo(() => {
    if (!detail.data) return null;
    const changes = feed.runLoad?.runId === id ? feed.runLoad.loadChanges : null;
    const current = {
      ...detail.data,
      status: (status ?? detail.data.status) as RunDetail["status"],
      // Changes pushed live are newer than the report fetched at the page's start.
      loadChanges:
        changes && changes.length > detail.data.loadChanges.length ? changes : detail.data.loadChanges,
    };
    if (!live || !runWorkers.length) return current;
    // While the run is live, each worker's requests and state come with every merged second.
    const total = runWorkers.reduce((sum, w) => sum + w.requests, 0);
    const byId = new Map(runWorkers.map((w) => [w.workerId, w]));
    return {
      ...current,
      workers: current.workers.map((w) => {
        const latest = byId.get(w.workerId);
        return latest
          ? {
              ...w,
              requests: latest.requests,
              status: latest.status,
              share: total ? latest.requests / total : 0,
            }
          : w;
      }),
    };
  }, [detail.data, status, live, runWorkers, feed.runLoad, id]);
  return {
    run,
    summary,
    points,
    requestPoints,
    scenarioPoints,
    metricPoints,
    live,
    error: detail.error,
    loading: detail.loading && !detail.data,
    reload: () => {
      reloadDetail();
      reloadSeries();
    },
  };
}

/** Stored series by name, each followed by its live points. */
function mergeSeries<P extends { t: number }>(
  stored: Record<string, P[]> | undefined,
  live: Record<string, P[]>,
): Record<string, P[]> {
  const merged: Record<string, P[]> = { ...(stored ?? {}) };
  for (const [name, list] of Object.entries(live)) merged[name] = mergePoints(merged[name] ?? [], list);
  return merged;
}

/** Stored points, then live ones past the last stored second. */
function mergePoints<P extends { t: number }>(stored: P[], live: P[]): P[] {
  if (!live.length) return stored;
  const lastStored = stored.at(-1)?.t ?? -1;
  return [...stored, ...live.filter((p) => p.t > lastStored)];
}
