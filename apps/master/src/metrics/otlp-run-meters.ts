import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, type MetricReader } from "@opentelemetry/sdk-metrics";
import { RUN_METRICS, type RunMetric } from "@volley/protocol";
import { type TracedSeries, tracedOf } from "./otlp-exemplars.js";
import {
  customCounterSamples,
  customGaugeSamples,
  customRateSamples,
  customTrendQuantiles,
  durationQuantiles,
  failureCounts,
  messageCounts,
  type RunMetricsSource,
  requestCounts,
  streamTimingQuantiles,
  vusSamples,
} from "./run-samples.js";

/** One run's OpenTelemetry instruments, observed from whatever source is set at collection. */
export interface RunMeters {
  runId: string;
  provider: MeterProvider;
  reader: MetricReader;
  observe(source: RunMetricsSource | null): void;
  /** The series of the last collection that carry a trace (their OTLP exemplars). */
  traced(): TracedSeries[];
}

/** The instruments of `/metrics` under their OpenTelemetry names (see RUN_METRICS). */
export function runMeters(runId: string, version: string, reader: MetricReader): RunMeters {
  let source: RunMetricsSource | null = null;
  let traced: TracedSeries[] = [];
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": "volley", "service.version": version }),
    readers: [reader],
  });
  const meter = provider.getMeter("volley", version);
  const instrument = (metric: RunMetric) => {
    const options = { description: metric.help, unit: metric.unit };
    return metric.kind === "counter"
      ? meter.createObservableCounter(metric.otlp, options)
      : meter.createObservableGauge(metric.otlp, options);
  };
  const requests = instrument(RUN_METRICS.requests);
  const failures = instrument(RUN_METRICS.failures);
  const duration = instrument(RUN_METRICS.duration);
  const vus = instrument(RUN_METRICS.vus);
  const streamTiming = instrument(RUN_METRICS.streamTiming);
  const messages = instrument(RUN_METRICS.messages);
  const customCounter = instrument(RUN_METRICS.customCounter);
  const customRate = instrument(RUN_METRICS.customRate);
  const customGauge = instrument(RUN_METRICS.customGauge);
  const customTrend = instrument(RUN_METRICS.customTrend);
  meter.addBatchObservableCallback(
    (result) => {
      if (!source) return;
      const requestSamples = requestCounts(source);
      const failureSamples = failureCounts(source);
      for (const s of requestSamples) result.observe(requests, s.value, s.labels);
      for (const s of failureSamples) result.observe(failures, s.value, s.labels);
      traced = [
        ...tracedOf(RUN_METRICS.requests.otlp, requestSamples),
        ...tracedOf(RUN_METRICS.failures.otlp, failureSamples),
      ];
      for (const s of durationQuantiles(source)) result.observe(duration, s.value, s.labels);
      for (const s of vusSamples(source)) result.observe(vus, s.value, s.labels);
      for (const s of streamTimingQuantiles(source)) result.observe(streamTiming, s.value, s.labels);
      for (const s of messageCounts(source)) result.observe(messages, s.value, s.labels);
      for (const s of customCounterSamples(source)) result.observe(customCounter, s.value, s.labels);
      for (const s of customRateSamples(source)) result.observe(customRate, s.value, s.labels);
      for (const s of customGaugeSamples(source)) result.observe(customGauge, s.value, s.labels);
      for (const s of customTrendQuantiles(source)) result.observe(customTrend, s.value, s.labels);
    },
    [
      requests,
      failures,
      duration,
      vus,
      streamTiming,
      messages,
      customCounter,
      customRate,
      customGauge,
      customTrend,
    ],
  );
  return {
    runId,
    provider,
    reader,
    observe: (next) => {
      source = next;
      traced = [];
    },
    traced: () => traced,
  };
}
