import { Counter, Gauge, type Registry } from "prom-client";
import {
  durationQuantiles,
  failureCounts,
  liveSource,
  type RunMetricsSource,
  requestCounts,
  type Sample,
  vusSamples,
} from "../../metrics/run-samples.js";
import type { Services } from "../../services.js";

/**
 * The running run's figures for Prometheus, read from its merged statistics at scrape time:
 * requests by status, failures, latency quantiles over the last 10 closed seconds, VUs. Empty
 * when no run is active on this master.
 */
export function addRunMetrics(registry: Registry, services: Services): void {
  const source = (): RunMetricsSource | null => {
    const runId = services.scheduler.activeRunId;
    const run = runId ? services.pipeline.active(runId) : undefined;
    return run ? liveSource(run) : null;
  };
  const family = (
    kind: "counter" | "gauge",
    name: string,
    help: string,
    labelNames: string[],
    read: (source: RunMetricsSource) => Sample[],
  ) => {
    const options = { name, help, labelNames, registers: [registry] };
    const fill = (set: (labels: Record<string, string>, value: number) => void) => {
      const current = source();
      if (current) for (const sample of read(current)) set(sample.labels, sample.value);
    };
    if (kind === "counter") {
      new Counter({
        ...options,
        collect() {
          this.reset();
          fill((labels, value) => this.inc(labels, value));
        },
      });
    } else {
      new Gauge({
        ...options,
        collect() {
          this.reset();
          fill((labels, value) => this.set(labels, value));
        },
      });
    }
  };
  const request = ["run", "scenario", "request"];
  family(
    "counter",
    "volley_requests_total",
    "Requests of the running run by scenario, request name and status (0: no answer)",
    [...request, "status"],
    requestCounts,
  );
  family(
    "counter",
    "volley_request_failures_total",
    "Failed requests of the running run (status, expectation, network, timeout...)",
    request,
    failureCounts,
  );
  family(
    "gauge",
    "volley_request_duration_seconds",
    "Latency quantiles of the running run over its last 10 closed seconds (exact, merged histograms)",
    [...request, "quantile"],
    durationQuantiles,
  );
  family("gauge", "volley_vus", "VUs of the running run in its last merged second", ["run"], vusSamples);
}
