import {
  METRIC_UNIT_SCALE,
  type MetricKind,
  metricMethod,
  metricStatsName,
  type RequestStats,
} from "@volley/protocol";
import {
  clampLatencyUs,
  createRecordingHistogram,
  type LatencyHistogram,
  recordWhole,
} from "./histogram/latency-histogram.js";
import { encodeHistogram } from "./histogram/sparse-codec.js";

/**
 * What one custom metric measures during one period, on the engine thread: a few additions per
 * value (a trend records one histogram value, scaled by its unit), nothing allocated. It flushes
 * as request statistics of the metric's method (see custom-metrics.ts in @volley/protocol):
 * `requests` counts values; a trend's latency fields hold its scaled values, a counter's `sumUs`
 * its sum, a rate's `failures` its false values, a gauge its own `gauge` figures.
 */
export class MetricRecorder {
  readonly statsName: string;
  readonly method: string;
  private count = 0;
  private fails = 0;
  private sum = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  private last = 0;
  private lastAtMs = 0;
  private readonly scale: number;
  private readonly histogram: LatencyHistogram | null;

  constructor(
    readonly metric: string,
    readonly kind: MetricKind,
    /** False records counts only (no histogram): for `pnpm bench overhead`, not for real runs. */
    histograms = true,
  ) {
    this.statsName = metricStatsName(metric, kind);
    this.method = metricMethod(kind);
    this.scale = kind.type === "trend" ? METRIC_UNIT_SCALE[kind.unit] : 1;
    this.histogram = kind.type === "trend" && histograms ? createRecordingHistogram() : null;
  }

  /** A trend's value (≥ 0, in its unit) or a counter's increment (≥ 0). */
  add(value: number): void {
    const recorded = this.kind.type === "trend" ? clampLatencyUs(value * this.scale) : value;
    this.count++;
    this.sum += recorded;
    if (recorded < this.min) this.min = recorded;
    if (recorded > this.max) this.max = recorded;
    if (this.histogram !== null) recordWhole(this.histogram, recorded);
  }

  /** A rate's value: true passes, false fails. */
  addRate(pass: boolean): void {
    this.count++;
    if (!pass) this.fails++;
  }

  /** A gauge's value, set at `atMs` (ms since the epoch: the fleet's gauges merge on it). */
  set(value: number, atMs: number): void {
    this.count++;
    this.last = value;
    this.lastAtMs = atMs;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }

  get isEmpty(): boolean {
    return this.count === 0;
  }

  /** The period's statistics; the recorder starts a new period. */
  flush(): RequestStats {
    const gauge = this.kind.type === "gauge";
    // Trends and counters have values to sum and bound; rates and gauges none (a gauge's own below).
    const valued = this.count > 0 && (this.kind.type === "trend" || this.kind.type === "counter");
    const stats: RequestStats = {
      name: this.statsName,
      method: this.method,
      requests: this.count,
      failures: this.fails,
      bytesIn: 0,
      bytesOut: 0,
      statusCodes: {},
      errors: [],
      latency: {
        sumUs: valued ? this.sum : 0,
        minUs: valued ? this.min : 0,
        maxUs: valued ? this.max : 0,
        histogram: this.histogram ? encodeHistogram(this.histogram) : "",
      },
      ...(gauge && this.count > 0
        ? { gauge: { last: this.last, atMs: this.lastAtMs, min: this.min, max: this.max } }
        : {}),
    };
    if (this.count) this.histogram?.reset();
    this.count = this.fails = this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
    return stats;
  }
}
