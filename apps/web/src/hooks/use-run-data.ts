import type { RunDetail, RunSummary, Timeseries, TimeseriesPoint } from "@volley/protocol";
import { useEffect, useMemo } from "react";
import { useApi } from "../api/use-api.js";
import { useLive } from "../live/live-context.js";

export const ACTIVE_STATUSES = new Set(["queued", "running", "stopping"]);

export interface RunData {
  run: RunDetail | null;
  summary: RunSummary | null;
  points: TimeseriesPoint[];
  requestPoints: Record<string, TimeseriesPoint[]>;
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

  const livePoints = feed.liveRunId === id ? feed.points : [];
  const points = useMemo(
    () => mergePoints(series.data?.overall ?? [], livePoints),
    [series.data, livePoints],
  );
  const requestPoints = useMemo(() => {
    const merged: Record<string, TimeseriesPoint[]> = { ...(series.data?.requests ?? {}) };
    if (feed.liveRunId === id) {
      for (const [name, list] of Object.entries(feed.requestPoints))
        merged[name] = mergePoints(merged[name] ?? [], list);
    }
    return merged;
  }, [series.data, feed.requestPoints, feed.liveRunId, id]);

  const run = detail.data && status ? { ...detail.data, status: status as RunDetail["status"] } : detail.data;
  const summary =
    live && feed.liveRunId === id && feed.summary ? feed.summary : (detail.data?.summary ?? null);
  return {
    run,
    summary,
    points,
    requestPoints,
    live,
    error: detail.error,
    loading: detail.loading && !detail.data,
    reload: () => {
      reloadDetail();
      reloadSeries();
    },
  };
}

/** Stored points, then live ones past the last stored second. */
function mergePoints(stored: TimeseriesPoint[], live: TimeseriesPoint[]): TimeseriesPoint[] {
  if (!live.length) return stored;
  const lastStored = stored.at(-1)?.t ?? -1;
  return [...stored, ...live.filter((p) => p.t > lastStored)];
}
