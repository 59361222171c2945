import type { RunSecondRow } from "@volley/db";
import type { MetricKind, MetricPoint, TimeseriesPoint } from "@volley/protocol";

/**
 * A custom metric's second in the columns of a stored second (its row is named as its statistics
 * are, which says its kind): `requests` its count, `p50Ms` its value, `p95Ms` / `p99Ms` a trend's
 * p95 and p99 or a gauge's min and max. The stored statistics beside them keep everything else.
 */
export function metricColumns(point: MetricPoint, vus: number): TimeseriesPoint {
  return {
    t: point.t,
    rps: point.count,
    errorsPerSec: 0,
    vus,
    p50: point.value,
    p95: point.p95 ?? point.min ?? null,
    p99: point.p99 ?? point.max ?? null,
  };
}

/** The point a stored metric row holds (see metricColumns). */
export function metricPointOfRow(row: Omit<RunSecondRow, "stats">, kind: MetricKind): MetricPoint {
  const point: MetricPoint = { t: row.second, count: row.requests, value: row.p50Ms };
  if (kind.type === "trend") return { ...point, p95: row.p95Ms, p99: row.p99Ms };
  if (kind.type === "gauge") return { ...point, min: row.p95Ms, max: row.p99Ms };
  return point;
}
