import { isRequestMethod, type RunDetail, streamOf, unscopedName } from "@volley/protocol";
import {
  metricPoint,
  metricSummary,
  metricsAmong,
  type RequestAggregate,
  type StatsAggregate,
} from "@volley/stats";
import type { RunAggregator } from "../pipeline/run-aggregator.js";

/** One value of a metric with its labels (Prometheus) or attributes (OpenTelemetry). */
export interface Sample {
  labels: Record<string, string>;
  value: number;
  /** A trace of this series (`http.tracing`): an OpenMetrics exemplar. */
  exemplar?: string;
}

/**
 * What the run metrics are read from: the running run's merged statistics, or a finished run's
 * final ones (no recent window, no VUs). Prometheus and OTLP read the same source, so the two
 * exports never disagree.
 */
export interface RunMetricsSource {
  runId: string;
  cumulative: StatsAggregate;
  /** The last 10 closed seconds; null once the run has ended. */
  recent: StatsAggregate | null;
  vus: number;
  /** The run's scenario names (of `scenarios:`): its statistics' names are scoped by them. */
  scenarios: ReadonlyArray<string | null>;
}

export const DURATION_QUANTILES = [0.5, 0.95, 0.99] as const;

export function liveSource(run: RunAggregator): RunMetricsSource {
  return {
    runId: run.runId,
    cumulative: run.cumulative,
    recent: run.recentStats(),
    vus: run.lastPoint?.vus ?? 0,
    scenarios: run.scenario?.parts.map((part) => part.name) ?? [],
  };
}

/** A finished run's final counters: what an OTLP receiver gets once after the run ended. */
export function finalSource(report: RunDetail, stats: StatsAggregate): RunMetricsSource {
  const scenarios = Object.keys(report.scenario.scenarios ?? {});
  return { runId: report.id, cumulative: stats, recent: null, vus: 0, scenarios };
}

/**
 * Requests by request name and status (`0`: no answer); with `http.tracing`, the series of the
 * slowest request of the last 10 closed seconds (of the run, once it ended) carries its trace.
 */
export function requestCounts(source: RunMetricsSource): Sample[] {
  const out: Sample[] = [];
  forEachRequest(source, source.cumulative, (labels, aggregate) => {
    const slowest = source.recent?.get(aggregate.name)?.slowest[0] ?? aggregate.slowest[0];
    const exemplar = (status: string) => (slowest?.status === status ? { exemplar: slowest.traceId } : {});
    let answered = 0;
    for (const [status, count] of Object.entries(aggregate.statusCodes)) {
      out.push({ labels: { ...labels, status }, value: count, ...exemplar(status) });
      answered += count;
    }
    if (aggregate.requests > answered)
      out.push({
        labels: { ...labels, status: "0" },
        value: aggregate.requests - answered,
        ...exemplar("0"),
      });
  });
  return out;
}

/** Failed requests by request name; with `http.tracing`, one failure's trace as the exemplar. */
export function failureCounts(source: RunMetricsSource): Sample[] {
  const out: Sample[] = [];
  forEachRequest(source, source.cumulative, (labels, aggregate) => {
    const traced = aggregate.errors.list().find((e) => e.traceIds?.length);
    out.push({ labels, value: aggregate.failures, ...(traced ? { exemplar: traced.traceIds?.[0] } : {}) });
  });
  return out;
}

/** Latency quantiles (seconds) over the last 10 closed seconds, from merged histograms. */
export function durationQuantiles(source: RunMetricsSource): Sample[] {
  const out: Sample[] = [];
  if (!source.recent) return out;
  forEachRequest(source, source.recent, (labels, aggregate) => {
    if (aggregate.requests === 0) return;
    for (const quantile of DURATION_QUANTILES) {
      out.push({
        labels: { ...labels, quantile: String(quantile) },
        value: aggregate.percentileUs(quantile * 100) / 1e6,
      });
    }
  });
  return out;
}

/** Streamed requests' timings (seconds) over the last 10 closed seconds: first byte, first event, gap. */
export function streamTimingQuantiles(source: RunMetricsSource): Sample[] {
  const out: Sample[] = [];
  if (!source.recent) return out;
  for (const aggregate of source.recent.list()) {
    const stream = streamOf(aggregate.name);
    if (stream === null || aggregate.requests === 0) continue;
    const labels = { ...requestLabels(source, stream.request), timing: stream.timing };
    for (const quantile of DURATION_QUANTILES) {
      out.push({
        labels: { ...labels, quantile: String(quantile) },
        value: aggregate.percentileUs(quantile * 100) / 1e6,
      });
    }
  }
  return out;
}

/** WebSocket and gRPC stream messages by request name, sent and received. */
export function messageCounts(source: RunMetricsSource): Sample[] {
  const out: Sample[] = [];
  forEachRequest(source, source.cumulative, (labels, aggregate) => {
    if (aggregate.messagesSent === 0 && aggregate.messagesReceived === 0) return;
    out.push({ labels: { ...labels, direction: "sent" }, value: aggregate.messagesSent });
    out.push({ labels: { ...labels, direction: "received" }, value: aggregate.messagesReceived });
  });
  return out;
}

/** Custom counters: the sum added so far. */
export function customCounterSamples(source: RunMetricsSource): Sample[] {
  return metricsAmong(source.cumulative.list()).flatMap((metric) => {
    const summary = metricSummary(metric, 0);
    return summary.type === "counter"
      ? [{ labels: metricLabels(source, metric.name), value: summary.count }]
      : [];
  });
}

/** Custom rates: values added so far, passes and fails apart. */
export function customRateSamples(source: RunMetricsSource): Sample[] {
  return metricsAmong(source.cumulative.list()).flatMap((metric) => {
    const summary = metricSummary(metric, 0);
    if (summary.type !== "rate") return [];
    const labels = metricLabels(source, metric.name);
    return [
      { labels: { ...labels, outcome: "pass" }, value: summary.passes },
      { labels: { ...labels, outcome: "fail" }, value: summary.fails },
    ];
  });
}

/** Custom gauges: the last value set across the fleet. */
export function customGaugeSamples(source: RunMetricsSource): Sample[] {
  return metricsAmong(source.cumulative.list()).flatMap((metric) => {
    const summary = metricSummary(metric, 0);
    return summary.type === "gauge"
      ? [{ labels: metricLabels(source, metric.name), value: summary.last }]
      : [];
  });
}

/** Custom trends: p50, p95 and p99 in their unit over the last 10 closed seconds. */
export function customTrendQuantiles(source: RunMetricsSource): Sample[] {
  if (!source.recent) return [];
  return metricsAmong(source.recent.list()).flatMap((metric) => {
    if (metric.kind.type !== "trend" || metric.aggregate.requests === 0) return [];
    const point = metricPoint(0, metric);
    const labels = { ...metricLabels(source, metric.name), unit: metric.kind.unit };
    return [
      { labels: { ...labels, quantile: "0.5" }, value: point.value ?? 0 },
      { labels: { ...labels, quantile: "0.95" }, value: point.p95 ?? 0 },
      { labels: { ...labels, quantile: "0.99" }, value: point.p99 ?? 0 },
    ];
  });
}

function metricLabels(source: RunMetricsSource, metric: string): { run: string; metric: string } {
  return { run: source.runId, metric };
}

export function vusSamples(source: RunMetricsSource): Sample[] {
  return [{ labels: { run: source.runId }, value: source.vus }];
}

type RequestLabels = { run: string; scenario: string; request: string };

/** Calls `each` for every request name of `stats` (groups, checks and scripts are not requests). */
function forEachRequest(
  source: RunMetricsSource,
  stats: StatsAggregate,
  each: (labels: RequestLabels, aggregate: RequestAggregate) => void,
): void {
  for (const aggregate of stats.list()) {
    if (!isRequestMethod(aggregate.method)) continue;
    each(requestLabels(source, aggregate.name), aggregate);
  }
}

/** A request's labels: its own name and its scenario (of `scenarios:`; "" for a single one). */
function requestLabels(source: RunMetricsSource, key: string): RequestLabels {
  const { name, scenario } = unscopedName(key, source.scenarios);
  return { run: source.runId, scenario: scenario ?? "", request: name };
}
