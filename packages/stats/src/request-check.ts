import {
  MAX_METRICS_PER_RUN,
  metricKindOf,
  metricMethod,
  metricNameProblem,
  metricOfStatsName,
  PHASES_PERIOD_S,
  type RequestStats,
  slowestCount,
} from "@volley/protocol";
import { phasesProblem } from "./histogram/phase-timings.js";
import { type DecodedHistograms, HistogramFormatError } from "./histogram/sparse-codec.js";

/** More than any worker sends in one second; a count past it is forged or corrupt. */
export const MAX_REQUESTS_PER_BATCH = 100_000_000;
const MAX_BYTES_PER_BATCH = 2 ** 48;

export interface RequestCheckOptions {
  /** Why a name cannot be taken, or null (the plan's names; absent: any name). */
  nameProblem?: (name: string) => string | null;
  /** Worker batches these measurements add up (the bounds scale with them). @defaultValue 1 */
  batches?: number;
}

/**
 * Why a second's per-request measurements cannot be merged, or null: the arithmetic (failures <=
 * requests, counts that add up), status codes, names, and every histogram decoded — once: the
 * merge adds what `histograms` holds (cleared first, then one entry per request, in order).
 */
export function checkRequestStats(
  requests: readonly RequestStats[],
  histograms: DecodedHistograms,
  options: RequestCheckOptions = {},
): string | null {
  histograms.clear();
  const scale = options.batches ?? 1;
  const seen = new Set<string>();
  const metricMethods = new Map<string, string>();
  for (const stats of requests) {
    const nameProblem = options.nameProblem?.(stats.name);
    if (nameProblem) return `${where(stats)} ${nameProblem}`;
    const metric = metricOfStatsName(stats.name);
    const metricProblem = customMetricProblem(stats, metric);
    if (metricProblem) return `${where(stats)}: ${metricProblem}`;
    if (metric) {
      const other = metricMethods.get(metric.name);
      if (other !== undefined) return `metric "${metric.name}" appears as ${other} and ${stats.method}`;
      metricMethods.set(metric.name, stats.method);
      if (metricMethods.size > MAX_METRICS_PER_RUN) return `more than ${MAX_METRICS_PER_RUN} custom metrics`;
    }
    if (seen.has(stats.name)) return `${where(stats)} appears twice`;
    seen.add(stats.name);
    if (stats.requests > MAX_REQUESTS_PER_BATCH * scale) {
      return `${where(stats)}: ${stats.requests} requests in a second`;
    }
    if (stats.failures > stats.requests) return `${where(stats)}: more failures than requests`;
    if (
      (stats.messagesSent ?? 0) > MAX_REQUESTS_PER_BATCH * scale ||
      (stats.messagesReceived ?? 0) > MAX_REQUESTS_PER_BATCH * scale
    ) {
      return `${where(stats)}: message counts beyond any second`;
    }
    // A hop is a request that was answered and followed, never a failure.
    if ((stats.redirects ?? 0) > stats.requests - stats.failures) {
      return `${where(stats)}: more redirects than answered requests`;
    }
    if (stats.bytesIn > MAX_BYTES_PER_BATCH * scale || stats.bytesOut > MAX_BYTES_PER_BATCH * scale) {
      return `${where(stats)}: byte counts beyond any second`;
    }
    let statuses = 0;
    for (const code in stats.statusCodes) {
      const count = stats.statusCodes[code];
      const status = Number(code);
      if (!code.startsWith("grpc:") && (status < 100 || status > 599))
        return `${where(stats)}: status ${code} is not an HTTP status`;
      statuses += count;
    }
    if (statuses > stats.requests) return `${where(stats)}: more status codes than requests`;
    let errors = 0;
    for (const error of stats.errors) {
      errors += error.count;
      if ((error.traceIds?.length ?? 0) > error.count) return `${where(stats)}: more trace ids than errors`;
    }
    // Their shape and order are the schema's (slowestTextSchema).
    if (stats.slowest && slowestCount(stats.slowest) > stats.requests) {
      return `${where(stats)}: more slowest requests than requests`;
    }
    const phases = stats.timings
      ? phasesProblem(stats.timings, MAX_REQUESTS_PER_BATCH * scale * PHASES_PERIOD_S, histograms)
      : null;
    if (phases) return `${where(stats)}: ${phases}`;
    if (errors > stats.failures) return `${where(stats)}: more errors than failures`;
    const { minUs, maxUs, sumUs } = stats.latency;
    if (stats.requests > 0 && (minUs > maxUs || sumUs > maxUs * stats.requests + stats.requests)) {
      return `${where(stats)}: latency figures that do not add up`;
    }
    let values: number;
    try {
      values = histograms.read(stats.latency.histogram);
    } catch (error) {
      if (error instanceof HistogramFormatError) return `${where(stats)}: ${error.message}`;
      throw error;
    }
    if (values > stats.requests) return `${where(stats)}: the histogram holds more values than requests`;
  }
  return null;
}

/** Names an entry in a refusal (built only then: a string per entry of every batch is garbage). */
function where(stats: RequestStats): string {
  return `request "${stats.name.slice(0, 80)}"`;
}

/**
 * Why statistics cannot be a custom metric's, or null: a metric's name goes with a metric's
 * method, and each type carries only its own figures (see MetricRecorder).
 */
function customMetricProblem(
  stats: RequestStats,
  metric: ReturnType<typeof metricOfStatsName>,
): string | null {
  if (metric === null) {
    if (metricKindOf(stats.method)) return "a custom metric's method on a statistic not named as one";
    return stats.gauge ? "a gauge's figures on a request" : null;
  }
  const { name, kind } = metric;
  if (stats.method !== metricMethod(kind)) return `metric "${name}" has another method than its name says`;
  const problem = metricNameProblem(name);
  if (problem) return `metric "${name.slice(0, 80)}" ${problem}`;
  if (stats.errors.length || Object.keys(stats.statusCodes).length || stats.bytesIn || stats.bytesOut) {
    return "a custom metric carries no errors, status codes or bytes";
  }
  if (kind.type !== "rate" && stats.failures > 0) return `a ${kind.type} has no failures`;
  if (kind.type !== "trend" && stats.latency.histogram !== "") return `a ${kind.type} has no histogram`;
  if ((kind.type === "gauge") !== (stats.gauge !== undefined && stats.requests > 0)) {
    return kind.type === "gauge" ? "a gauge without its figures" : `a ${kind.type} with a gauge's figures`;
  }
  if (
    stats.gauge &&
    (stats.gauge.min > stats.gauge.max ||
      stats.gauge.last < stats.gauge.min ||
      stats.gauge.last > stats.gauge.max)
  ) {
    return "gauge figures that do not add up";
  }
  return null;
}
