/**
 * The running run's figures as monitoring systems read them: each under its Prometheus name
 * (`GET /metrics`) and its OpenTelemetry name (OTLP push), with one description. An OTLP
 * collector's Prometheus export turns the OpenTelemetry name and unit back into the Prometheus
 * name (`volley.requests` + `{request}` → `volley_requests_total`).
 */
export interface RunMetric {
  prometheus: string;
  otlp: string;
  kind: "counter" | "gauge";
  /** UCUM unit of the OpenTelemetry instrument. */
  unit: string;
  /** Labels (attributes) each sample carries. */
  labels: readonly string[];
  help: string;
}

const REQUEST_LABELS = ["run", "scenario", "request"] as const;

export const RUN_METRICS = {
  requests: {
    prometheus: "volley_requests_total",
    otlp: "volley.requests",
    kind: "counter",
    unit: "{request}",
    labels: [...REQUEST_LABELS, "status"],
    help: "Requests of the running run by scenario, request name and status (0: no answer)",
  },
  failures: {
    prometheus: "volley_request_failures_total",
    otlp: "volley.request.failures",
    kind: "counter",
    unit: "{request}",
    labels: REQUEST_LABELS,
    help: "Failed requests of the running run (status, expectation, network, timeout...)",
  },
  duration: {
    prometheus: "volley_request_duration_seconds",
    otlp: "volley.request.duration",
    kind: "gauge",
    unit: "s",
    labels: [...REQUEST_LABELS, "quantile"],
    help: "Latency quantiles of the running run over its last 10 closed seconds (exact, merged histograms)",
  },
  streamTiming: {
    prometheus: "volley_stream_timing_seconds",
    otlp: "volley.stream.timing",
    kind: "gauge",
    unit: "s",
    labels: [...REQUEST_LABELS, "timing", "quantile"],
    help: "Streamed responses' time to first byte, to first event and between events, quantiles over the last 10 closed seconds",
  },
  messages: {
    prometheus: "volley_messages_total",
    otlp: "volley.messages",
    kind: "counter",
    unit: "{message}",
    labels: [...REQUEST_LABELS, "direction"],
    help: "WebSocket and gRPC stream messages of the running run by request name and direction (sent, received)",
  },
  customCounter: {
    prometheus: "volley_custom_counter_total",
    otlp: "volley.custom.counter",
    kind: "counter",
    unit: "1",
    labels: ["run", "metric"],
    help: "A script's counters (vu.metrics.counter): the sum added so far",
  },
  customRate: {
    prometheus: "volley_custom_rate_total",
    otlp: "volley.custom.rate",
    kind: "counter",
    unit: "{value}",
    labels: ["run", "metric", "outcome"],
    help: "A script's rates (vu.metrics.rate): values added so far, by outcome (pass, fail)",
  },
  customGauge: {
    prometheus: "volley_custom_gauge",
    otlp: "volley.custom.gauge",
    kind: "gauge",
    unit: "1",
    labels: ["run", "metric"],
    help: "A script's gauges (vu.metrics.gauge): the last value set across the fleet",
  },
  customTrend: {
    prometheus: "volley_custom_trend",
    otlp: "volley.custom.trend",
    kind: "gauge",
    unit: "1",
    labels: ["run", "metric", "unit", "quantile"],
    help: "A script's trends (vu.metrics.trend): quantiles in the trend's unit over the last 10 closed seconds (exact, merged histograms)",
  },
  vus: {
    prometheus: "volley_vus",
    otlp: "volley.vus",
    kind: "gauge",
    unit: "{vu}",
    labels: ["run"],
    help: "VUs of the running run in its last merged second",
  },
} as const satisfies Record<string, RunMetric>;
