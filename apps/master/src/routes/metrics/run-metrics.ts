import { RUN_METRICS, type RunMetric } from "@volley/protocol";
import { Counter, Gauge, type Registry, type RegistryContentType } from "prom-client";
import {
  customCounterSamples,
  customGaugeSamples,
  customRateSamples,
  customTrendQuantiles,
  durationQuantiles,
  failureCounts,
  liveSource,
  messageCounts,
  type RunMetricsSource,
  requestCounts,
  type Sample,
  streamTimingQuantiles,
  vusSamples,
} from "../../metrics/run-samples.js";
import type { Services } from "../../services.js";

/**
 * The figures of each run in progress for Prometheus, read from its merged statistics at scrape time:
 * requests by status, failures, latency quantiles over the last 10 closed seconds, a script's
 * custom metrics, VUs, each labelled
 * with its run. Empty when no run is in progress on this master.
 */
export function addRunMetrics(
  registry: Registry<RegistryContentType>,
  services: Services,
  openMetrics: boolean,
): void {
  // Every run in progress: each sample carries its run's id in the `run` label.
  const sources = (): RunMetricsSource[] =>
    services.scheduler.activeRunIds.flatMap((runId) => {
      const run = services.pipeline.active(runId);
      return run ? [liveSource(run)] : [];
    });
  const family = (metric: RunMetric, read: (source: RunMetricsSource) => Sample[]) => {
    const options = {
      name: metric.prometheus,
      help: metric.help,
      labelNames: [...metric.labels],
      registers: [registry],
    };
    const fill = (set: (sample: Sample) => void) => {
      for (const current of sources()) for (const sample of read(current)) set(sample);
    };
    if (metric.kind === "counter") {
      new Counter({
        ...options,
        enableExemplars: openMetrics,
        collect() {
          this.reset();
          fill(({ labels, value, exemplar }) => {
            if (!openMetrics || exemplar === undefined || value < 1) {
              this.inc(labels, value);
              return;
            }
            // The exemplar is one request of the series: an increment of 1 carrying its trace.
            this.inc(labels, value - 1);
            this.inc({ labels, value: 1, exemplarLabels: { trace_id: exemplar } });
          });
        },
      });
    } else {
      new Gauge({
        ...options,
        collect() {
          this.reset();
          fill(({ labels, value }) => this.set(labels, value));
        },
      });
    }
  };
  family(RUN_METRICS.requests, requestCounts);
  family(RUN_METRICS.failures, failureCounts);
  family(RUN_METRICS.duration, durationQuantiles);
  family(RUN_METRICS.streamTiming, streamTimingQuantiles);
  family(RUN_METRICS.messages, messageCounts);
  family(RUN_METRICS.customCounter, customCounterSamples);
  family(RUN_METRICS.customRate, customRateSamples);
  family(RUN_METRICS.customGauge, customGaugeSamples);
  family(RUN_METRICS.customTrend, customTrendQuantiles);
  family(RUN_METRICS.vus, vusSamples);
}
