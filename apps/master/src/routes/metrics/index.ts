import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Registry, type RegistryContentType } from "prom-client";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import type { Services } from "../../services.js";
import { addRunMetrics } from "./run-metrics.js";

/**
 * Prometheus metrics of the master, read at scrape time from the services: in Prometheus's text
 * format, or OpenMetrics (with the traced runs' exemplars) for a scraper that asks for it.
 */
export function createMetricsRegistry(
  services: Services,
  openMetrics = false,
): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
  new Gauge({
    name: "volley_active_run",
    help: "Runs in progress on this master (runs on disjoint workers run at once)",
    registers: [registry],
    collect() {
      this.set(services.scheduler.activeRunIds.length);
    },
  });
  new Gauge({
    name: "volley_workers",
    help: "Worker nodes by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      for (const [state, count] of Object.entries(services.registry.counts())) this.set({ state }, count);
    },
  });
  new Gauge({
    name: "volley_queue_depth",
    help: "Stats batches waiting in the queues of this master's runs",
    registers: [registry],
    async collect() {
      this.set(await services.consumers.depth());
    },
  });
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counter(
    "volley_batches_consumed_total",
    "Stats batches consumed from the queue",
    () => services.consumers.counts.consumed,
  );
  counter(
    "volley_batches_merged_total",
    "Worker stats batches merged (those aggregators' groups cover included)",
    () => services.intake.accepted,
  );
  counter(
    "volley_aggregator_groups_merged_total",
    "Aggregators' combined batches merged (each covers many worker batches)",
    () => services.intake.groups,
  );
  counter(
    "volley_batches_duplicate_total",
    "Redelivered batches recognised as duplicates",
    () => services.intake.duplicates,
  );
  counter(
    "volley_batches_rejected_total",
    "Batches dropped as malformed or unstorable",
    () => services.consumers.counts.rejected,
  );
  counter(
    "volley_checkpoints_total",
    "Merged statistics written to the database",
    () => services.pipeline.checkpoints,
  );
  new Gauge({
    name: "volley_persistence_lag_seconds",
    help: "How far the merged time series trails the clock of the run in progress (the most behind)",
    registers: [registry],
    collect() {
      let lag = 0;
      for (const runId of services.scheduler.activeRunIds) {
        const aggregator = services.pipeline.active(runId);
        if (!aggregator?.startAt) continue;
        const elapsed = (Date.now() - aggregator.startAt) / 1000;
        lag = Math.max(lag, elapsed - (aggregator.closedThrough + 1));
      }
      this.set(lag);
    },
  });
  new Gauge({
    name: "volley_aggregator_partitions_live",
    help: "Aggregator partitions beating in Redis: where new runs' workers send their batches",
    registers: [registry],
    async collect() {
      this.set((await services.consumers.liveAggregators()).size);
    },
  });
  new Gauge({
    name: "volley_live_clients",
    help: "Dashboards connected to the live feed",
    registers: [registry],
    collect() {
      this.set(services.live.size);
    },
  });
  addRunMetrics(registry, services, openMetrics);
  return registry;
}

export async function metricsRoutes(app: FastifyInstance): Promise<void> {
  const prometheus = createMetricsRegistry(app.services);
  const openMetrics = createMetricsRegistry(app.services, true);
  app.get("/metrics", { config: VIEWER_ROUTE }, async (request, reply) => {
    // Prometheus asks for OpenMetrics first when it may store exemplars.
    const wanted = String(request.headers.accept ?? "").includes("application/openmetrics-text");
    const registry = wanted ? openMetrics : prometheus;
    reply.header("content-type", registry.contentType);
    return registry.metrics();
  });
}
