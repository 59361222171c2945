import { MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { Logger } from "pino";
import { otlpHeaders, otlpJson, type TracedSeries } from "./otlp-exemplars.js";
import { type RunMeters, runMeters } from "./otlp-run-meters.js";
import type { RunMetricsSource } from "./run-samples.js";

export interface OtlpPushOptions {
  url: string;
  intervalMs: number;
  version: string;
  log: Logger;
  /** The metrics of each run in progress (none between runs). */
  live: () => RunMetricsSource[];
}

/**
 * Pushes the metrics of each run in progress over OTLP/HTTP (JSON) every interval, from the same samples
 * `/metrics` serves (traced series with their exemplar), and the run's final counters once when
 * it ends. The SDK models the metrics; the request is its OTLP/JSON serialisation, posted here. Each run gets its own
 * meter provider, dropped after the final push: the SDK keeps every attribute set it has seen
 * for cumulative instruments, so one provider for all runs would push every past run forever.
 * Pushes run on their own timer, off the stats path; a failed push is logged, and the next one
 * carries the cumulative values again.
 */
export class OtlpPush {
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly timer: NodeJS.Timeout;
  /** Each run's meter provider, until its final push. */
  private readonly meters = new Map<string, RunMeters>();
  private pushing: Promise<void> = Promise.resolve();
  private failing = false;
  /** Runs whose final push was made: a periodic push queued behind one says nothing more of it. */
  private readonly ended = new Set<string>();

  constructor(private readonly options: OtlpPushOptions) {
    this.url = metricsUrl(options.url);
    this.headers = { ...otlpHeaders(), "content-type": "application/json" };
    this.timer = setInterval(() => {
      for (const source of options.live()) void this.push(source, false);
    }, options.intervalMs);
    this.timer.unref();
  }

  /**
   * A run ended: push its final counters now (the last interval would otherwise be lost). The
   * push takes its place in the queue at once, before its counters are read, so no push of a
   * later run can come before it.
   */
  runEnded(runId: string, final: () => Promise<RunMetricsSource | null>): Promise<void> {
    // Kept for the pushes queued now; a run's id never comes back, so only the latest few matter.
    if (this.ended.size >= 100) this.ended.delete(this.ended.values().next().value as string);
    this.ended.add(runId);
    this.pushing = this.pushing.then(async () => {
      const source = await final().catch(() => null);
      if (source) await this.pushNow(source, true);
    });
    return this.pushing;
  }

  /** Stops the timer and lets a push under way finish. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.pushing;
    for (const meters of this.meters.values()) await meters.provider.shutdown().catch(() => {});
  }

  /** One push at a time, in order: a final push waits for a periodic one under way. */
  private push(source: RunMetricsSource, last: boolean): Promise<void> {
    this.pushing = this.pushing.then(() => this.pushNow(source, last));
    return this.pushing;
  }

  private async pushNow(source: RunMetricsSource, last: boolean): Promise<void> {
    if (!last && this.ended.has(source.runId)) return;
    let meters = this.meters.get(source.runId);
    if (!meters) {
      meters = runMeters(source.runId, this.options.version, new ManualReader());
      this.meters.set(source.runId, meters);
    }
    meters.observe(source);
    try {
      const { resourceMetrics } = await meters.reader.collect();
      await this.export(resourceMetrics, meters.traced());
    } finally {
      meters.observe(null);
      if (last) {
        this.meters.delete(source.runId);
        await meters.provider.shutdown().catch(() => {});
      }
    }
  }

  private async export(metrics: ResourceMetrics, traced: readonly TracedSeries[]): Promise<void> {
    let problem: string | undefined;
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: this.headers,
        body: otlpJson(metrics, traced),
        signal: AbortSignal.timeout(Math.min(this.options.intervalMs, 10_000)),
      });
      await response.arrayBuffer();
      if (!response.ok) problem = `HTTP ${response.status}`;
    } catch (error) {
      problem = (error as Error).message;
    }
    const failed = problem !== undefined;
    if (failed && !this.failing) {
      const where = new URL(this.url);
      this.options.log.warn(
        { otlp: `${where.origin}${where.pathname}`, err: problem },
        "OTLP metrics push failed (tried again every interval)",
      );
    } else if (!failed && this.failing) {
      this.options.log.info("OTLP metrics push works again");
    }
    this.failing = failed;
  }
}

/** `http://collector:4318` means its standard metrics path; a URL with a path is used as given. */
export function metricsUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === "/" || parsed.pathname === "") parsed.pathname = "/v1/metrics";
  return parsed.toString();
}

/** A reader collected on demand: OtlpPush owns the timing. */
class ManualReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}
