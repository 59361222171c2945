import { isRequestMethod, requestName, type Scenario } from "@volley/protocol";
import type { RequestAggregate, StatsAggregate } from "@volley/stats";
import { Counter, Gauge, type Registry } from "prom-client";
import type { RunAggregator } from "../../pipeline/run-aggregator.js";
import type { Services } from "../../services.js";

const QUANTILES = [0.5, 0.95, 0.99] as const;

/**
 * The running run's figures for Prometheus, read from its merged statistics at scrape time:
 * requests by status, failures, latency quantiles over the last 10 closed seconds, VUs. Empty
 * when no run is active on this master.
 */
export function addRunMetrics(registry: Registry, services: Services): void {
  const active = (): RunAggregator | undefined => {
    const runId = services.scheduler.activeRunId;
    return runId ? services.pipeline.active(runId) : undefined;
  };
  new Counter({
    name: "volley_requests_total",
    help: "Requests of the running run by scenario, request name and status (0: no answer)",
    labelNames: ["run", "scenario", "request", "status"],
    registers: [registry],
    collect() {
      this.reset();
      forEachRequest(active(), cumulative, (labels, aggregate) => {
        let answered = 0;
        for (const [status, count] of Object.entries(aggregate.statusCodes)) {
          this.inc({ ...labels, status }, count);
          answered += count;
        }
        if (aggregate.requests > answered)
          this.inc({ ...labels, status: "0" }, aggregate.requests - answered);
      });
    },
  });
  new Counter({
    name: "volley_request_failures_total",
    help: "Failed requests of the running run (status, expectation, network, timeout...)",
    labelNames: ["run", "scenario", "request"],
    registers: [registry],
    collect() {
      this.reset();
      forEachRequest(active(), cumulative, (labels, aggregate) => this.inc(labels, aggregate.failures));
    },
  });
  new Gauge({
    name: "volley_request_duration_seconds",
    help: "Latency quantiles of the running run over its last 10 closed seconds (exact, merged histograms)",
    labelNames: ["run", "scenario", "request", "quantile"],
    registers: [registry],
    collect() {
      this.reset();
      forEachRequest(active(), recent, (labels, aggregate) => {
        if (aggregate.requests === 0) return;
        for (const quantile of QUANTILES) {
          this.set({ ...labels, quantile: String(quantile) }, aggregate.percentileUs(quantile * 100) / 1e6);
        }
      });
    },
  });
  new Gauge({
    name: "volley_vus",
    help: "VUs of the running run in its last merged second",
    labelNames: ["run"],
    registers: [registry],
    collect() {
      this.reset();
      const run = active();
      if (run) this.set({ run: run.runId }, run.lastPoint?.vus ?? 0);
    },
  });
}

type RequestLabels = { run: string; scenario: string; request: string };

const cumulative = (run: RunAggregator) => run.cumulative;
const recent = (run: RunAggregator) => run.recentStats();

/** Calls `each` for every request name of the run's chosen statistics, with its labels. */
function forEachRequest(
  run: RunAggregator | undefined,
  stats: (run: RunAggregator) => StatsAggregate,
  each: (labels: RequestLabels, aggregate: RequestAggregate) => void,
): void {
  if (!run) return;
  const scenarioOf = scenarios(run.scenario);
  for (const aggregate of stats(run).list()) {
    if (!isRequestMethod(aggregate.method)) continue;
    each(
      { run: run.runId, scenario: scenarioOf.get(aggregate.name) ?? "", request: aggregate.name },
      aggregate,
    );
  }
}

/** Each request name's scenario (of `scenarios:`); none for a single scenario. */
function scenarios(scenario: Scenario | null): Map<string, string> {
  const out = new Map<string, string>();
  scenario?.requests.forEach((request, i) => {
    const part = scenario.requestScenarios[i];
    if (part) out.set(requestName(request), part);
  });
  return out;
}
