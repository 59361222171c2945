import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, type MetricReader } from "@opentelemetry/sdk-metrics";
import {
  durationQuantiles,
  failureCounts,
  type RunMetricsSource,
  requestCounts,
  vusSamples,
} from "./run-samples.js";

/** One run's OpenTelemetry instruments, observed from whatever source is set at collection. */
export interface RunMeters {
  runId: string;
  provider: MeterProvider;
  reader: MetricReader;
  observe(source: RunMetricsSource | null): void;
}

/**
 * The instruments of `/metrics` under OpenTelemetry names: `volley.requests` (unit `{request}`)
 * becomes `volley_requests_total` again in a collector's Prometheus export,
 * `volley.request.duration` (unit `s`) becomes `volley_request_duration_seconds`.
 */
export function runMeters(runId: string, version: string, reader: MetricReader): RunMeters {
  let source: RunMetricsSource | null = null;
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": "volley", "service.version": version }),
    readers: [reader],
  });
  const meter = provider.getMeter("volley", version);
  const requests = meter.createObservableCounter("volley.requests", {
    description: "Requests of the running run by scenario, request name and status (0: no answer)",
    unit: "{request}",
  });
  const failures = meter.createObservableCounter("volley.request.failures", {
    description: "Failed requests of the running run (status, expectation, network, timeout...)",
    unit: "{request}",
  });
  const duration = meter.createObservableGauge("volley.request.duration", {
    description: "Latency quantiles of the running run over its last 10 closed seconds (merged histograms)",
    unit: "s",
  });
  const vus = meter.createObservableGauge("volley.vus", {
    description: "VUs of the running run in its last merged second",
    unit: "{vu}",
  });
  meter.addBatchObservableCallback(
    (result) => {
      if (!source) return;
      for (const s of requestCounts(source)) result.observe(requests, s.value, s.labels);
      for (const s of failureCounts(source)) result.observe(failures, s.value, s.labels);
      for (const s of durationQuantiles(source)) result.observe(duration, s.value, s.labels);
      for (const s of vusSamples(source)) result.observe(vus, s.value, s.labels);
    },
    [requests, failures, duration, vus],
  );
  return {
    runId,
    provider,
    reader,
    observe: (next) => {
      source = next;
    },
  };
}
