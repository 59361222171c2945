import { LINE_COLOURS, MEASURE_COLOURS, PERCENTILE_COLOURS } from "../chart-colours.js";
import { formatBytes, formatMs, formatNumber } from "../format.js";
import type { MetricPoint, MetricSummary, MetricUnit } from "./custom-metrics.js";

/** A figure of a custom metric as every report shows it. */
export interface MetricFigure {
  label: string;
  text: string;
}

/** A value in a trend's unit, as text ("42.5 ms", "1.2 MB", "17.25"). */
export function formatMetricValue(value: number | null | undefined, unit: MetricUnit): string {
  if (value === null || value === undefined) return "–";
  if (unit === "ms") return formatMs(value);
  if (unit === "bytes") return formatBytes(value);
  return formatNumber(value, 3);
}

/**
 * A custom metric's figures in the order reports show them (the dashboard, the HTML report):
 * a trend's count and spread in its unit, a counter's total and rate, a rate's share of true
 * with its passes and fails, a gauge's last, lowest and highest.
 */
export function metricFigures(metric: MetricSummary): MetricFigure[] {
  switch (metric.type) {
    case "trend": {
      const v = (value: number) => formatMetricValue(value, metric.unit);
      return [
        { label: "count", text: formatNumber(metric.count) },
        { label: "min", text: v(metric.min) },
        { label: "mean", text: v(metric.mean) },
        { label: "p50", text: v(metric.p50) },
        { label: "p90", text: v(metric.p90) },
        { label: "p95", text: v(metric.p95) },
        { label: "p99", text: v(metric.p99) },
        { label: "p99.9", text: v(metric.p999) },
        { label: "max", text: v(metric.max) },
      ];
    }
    case "counter":
      return [
        { label: "total", text: formatNumber(metric.count, 3) },
        { label: "per second", text: formatNumber(metric.ratePerSecond, 3) },
      ];
    case "rate":
      return [
        { label: "rate", text: `${(metric.rate * 100).toFixed(2)} %` },
        { label: "true", text: formatNumber(metric.passes) },
        { label: "false", text: formatNumber(metric.fails) },
      ];
    case "gauge":
      return [
        { label: "last", text: formatNumber(metric.last, 3) },
        { label: "min", text: formatNumber(metric.min, 3) },
        { label: "max", text: formatNumber(metric.max, 3) },
      ];
  }
}

/** A metric's type as reports name it: "trend (ms)", "counter"... */
export function metricTypeLabel(metric: MetricSummary): string {
  return metric.type === "trend" ? `trend (${metric.unit})` : metric.type;
}

/** A custom metric's chart: its unit and lines, for the dashboard's charts and the HTML report's. */
export interface MetricChart {
  unit: string;
  lines: Array<{ label: string; color: string; values: Array<number | null> }>;
}

/**
 * What a custom metric's chart draws each second: a trend's p50, p95 and p99; a counter's sum
 * per second; a rate's share of true (in %); a gauge's last value with its lowest and highest.
 */
export function metricChart(metric: MetricSummary, points: readonly MetricPoint[]): MetricChart {
  const values = (read: (p: MetricPoint) => number | null | undefined) => points.map((p) => read(p) ?? null);
  switch (metric.type) {
    case "trend":
      return {
        unit: metric.unit === "none" ? "value" : metric.unit,
        lines: [
          { label: "p50", color: PERCENTILE_COLOURS.p50, values: values((p) => p.value) },
          { label: "p95", color: PERCENTILE_COLOURS.p95, values: values((p) => p.p95) },
          { label: "p99", color: PERCENTILE_COLOURS.p99, values: values((p) => p.p99) },
        ],
      };
    case "counter":
      return {
        unit: "per second",
        lines: [{ label: "added/s", color: MEASURE_COLOURS.throughput, values: values((p) => p.value ?? 0) }],
      };
    case "rate":
      return {
        unit: "% true",
        lines: [
          {
            label: "true",
            color: MEASURE_COLOURS.throughput,
            values: values((p) => (p.value === null ? null : Math.round(p.value * 10000) / 100)),
          },
        ],
      };
    case "gauge":
      return {
        unit: "value",
        lines: [
          { label: "last", color: LINE_COLOURS[0], values: values((p) => p.value) },
          { label: "min", color: LINE_COLOURS[2], values: values((p) => p.min) },
          { label: "max", color: LINE_COLOURS[3], values: values((p) => p.max) },
        ],
      };
  }
}
