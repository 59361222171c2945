import {
  METRIC_UNIT_SCALE,
  type MetricKind,
  type MetricPoint,
  type MetricSummary,
  metricOfStatsName,
} from "@volley/protocol";
import type { RequestAggregate } from "./request-aggregate.js";

/** A custom metric's merged statistics: its name, kind and aggregate (see MetricRecorder). */
export interface MergedMetric {
  name: string;
  kind: MetricKind;
  aggregate: RequestAggregate;
}

/** The aggregates among these that are custom metrics, with their names and kinds. */
export function metricsAmong(aggregates: Iterable<RequestAggregate>): MergedMetric[] {
  const metrics: MergedMetric[] = [];
  for (const aggregate of aggregates) {
    const metric = metricOfStatsName(aggregate.name);
    if (metric) metrics.push({ ...metric, aggregate });
  }
  return metrics;
}

/** `summary.metrics.NAME`: a trend's figures in its unit, rates per second of `durationS`. */
export function metricSummary({ kind, aggregate: a }: MergedMetric, durationS: number): MetricSummary {
  switch (kind.type) {
    case "trend": {
      const value = unitValue(kind);
      const has = a.requests > 0;
      const [p50, p90, p95, p99, p999] = a.percentilesUs([50, 90, 95, 99, 99.9]);
      return {
        type: "trend",
        unit: kind.unit,
        count: a.requests,
        min: has ? value(a.minUs) : 0,
        mean: has ? value(a.sumUs / a.requests) : 0,
        max: has ? value(a.maxUs) : 0,
        p50: value(p50),
        p90: value(p90),
        p95: value(p95),
        p99: value(p99),
        p999: value(p999),
      };
    }
    case "counter": {
      const count = roundSum(a.sumUs);
      return {
        type: "counter",
        count,
        ratePerSecond: durationS > 0 ? Math.round((count / durationS) * 1000) / 1000 : 0,
      };
    }
    case "rate":
      return {
        type: "rate",
        passes: a.requests - a.failures,
        fails: a.failures,
        rate: a.requests ? (a.requests - a.failures) / a.requests : 0,
      };
    case "gauge":
      return { type: "gauge", last: a.gauge?.last ?? 0, min: a.gauge?.min ?? 0, max: a.gauge?.max ?? 0 };
  }
}

/** One second of a metric, as the live view and the time series give it (see MetricPoint). */
export function metricPoint(second: number, { kind, aggregate: a }: MergedMetric): MetricPoint {
  const point: MetricPoint = { t: second, count: a.requests, value: null };
  if (a.requests === 0) return point;
  switch (kind.type) {
    case "trend": {
      const value = unitValue(kind);
      const [p50, p95, p99] = a.percentilesUs([50, 95, 99]);
      return { ...point, value: value(p50), p95: value(p95), p99: value(p99) };
    }
    case "counter":
      return { ...point, value: roundSum(a.sumUs) };
    case "rate":
      return { ...point, value: (a.requests - a.failures) / a.requests };
    case "gauge":
      return { ...point, value: a.gauge?.last ?? null, min: a.gauge?.min ?? null, max: a.gauge?.max ?? null };
  }
}

/**
 * A trend's recorded (scaled, whole) value back in its unit: to the thousandth it was recorded
 * in, a mean to a millionth (the division's last bits are noise).
 */
function unitValue(kind: MetricKind): (recorded: number) => number {
  const scale = METRIC_UNIT_SCALE[kind.unit];
  return (recorded) => Math.round((recorded / scale) * 1e6) / 1e6;
}

/**
 * A counter's sum: fractions added in another order differ in their last bits, so the sum is
 * given to a millionth (whole increments, the usual case, are exact either way).
 */
function roundSum(sum: number): number {
  return Math.round(sum * 1e6) / 1e6;
}
