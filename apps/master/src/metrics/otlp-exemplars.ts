import { JsonMetricsSerializer } from "@opentelemetry/otlp-transformer";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { Sample } from "./run-samples.js";

/** A series that carries a trace (`http.tracing`): its metric, its attributes, the trace id. */
export interface TracedSeries {
  metric: string;
  labels: Record<string, string>;
  traceId: string;
}

/** The samples of one metric that carry a trace, under the metric's OpenTelemetry name. */
export function tracedOf(metric: string, samples: readonly Sample[]): TracedSeries[] {
  return samples.flatMap((s) =>
    s.exemplar === undefined || s.value < 1 ? [] : [{ metric, labels: s.labels, traceId: s.exemplar }],
  );
}

interface JsonPoint {
  attributes?: Array<{ key: string; value: { stringValue?: string } }>;
  timeUnixNano?: string | number;
  exemplars?: unknown[];
}
interface JsonMetric {
  name: string;
  sum?: { dataPoints?: JsonPoint[] };
  gauge?: { dataPoints?: JsonPoint[] };
}

/**
 * The OTLP/JSON export request of `metrics`, with an exemplar on each traced series' point. The
 * OpenTelemetry JS SDK keeps no exemplars for observable instruments, so they are written into
 * its serialised request: one request of the series (an increment of 1) carrying its trace, as
 * on `/metrics`. OTLP/JSON writes trace ids as hex.
 */
export function otlpJson(metrics: ResourceMetrics, traced: readonly TracedSeries[]): string {
  const text = new TextDecoder().decode(JsonMetricsSerializer.serializeRequest(metrics));
  if (traced.length === 0) return text;
  const request = JSON.parse(text) as {
    resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: JsonMetric[] }> }>;
  };
  for (const resource of request.resourceMetrics ?? []) {
    for (const scope of resource.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        const points = metric.sum?.dataPoints ?? metric.gauge?.dataPoints ?? [];
        for (const series of traced) {
          if (series.metric !== metric.name) continue;
          const point = points.find((p) => sameLabels(p, series.labels));
          if (point === undefined) continue;
          point.exemplars = [{ timeUnixNano: point.timeUnixNano, asInt: 1, traceId: series.traceId }];
        }
      }
    }
  }
  return JSON.stringify(request);
}

function sameLabels(point: JsonPoint, labels: Record<string, string>): boolean {
  const attributes = point.attributes ?? [];
  if (attributes.length !== Object.keys(labels).length) return false;
  return attributes.every((a) => labels[a.key] === a.value.stringValue);
}

/**
 * The headers OpenTelemetry's exporters take from the environment:
 * `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_EXPORTER_OTLP_METRICS_HEADERS` ("k=v,k2=v2", values
 * percent-encoded), the metrics ones winning.
 */
export function otlpHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const list of [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_METRICS_HEADERS]) {
    for (const pair of (list ?? "").split(",")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      try {
        headers[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
      } catch {
        // A header that does not decode is left out, as the OpenTelemetry exporters do.
      }
    }
  }
  return headers;
}
