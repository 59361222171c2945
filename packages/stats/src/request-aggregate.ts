import {
  decodeSlowest,
  encodeSlowest,
  type GaugeStats,
  type LatencySummary,
  laterGauge,
  MAX_SLOWEST,
  mergeSlowest,
  type RequestStats,
  type RequestSummary,
  type SlowTrace,
  slowestTopMs,
} from "@volley/protocol";
import { ErrorCounter } from "./error-counter.js";
import { addHistogram, createMergeHistogram } from "./histogram/latency-histogram.js";
import { valuesAtPercentiles } from "./histogram/percentiles.js";
import { PHASES, PhaseTimings } from "./histogram/phase-timings.js";
import { addEncodedHistogram, type DecodedHistograms, encodeHistogram } from "./histogram/sparse-codec.js";

export const SUMMARY_PERCENTILES = { p50: 50, p75: 75, p90: 90, p95: 95, p99: 99, p999: 99.9 } as const;
const SUMMARY_PERCENTILE_KEYS = Object.keys(SUMMARY_PERCENTILES) as (keyof typeof SUMMARY_PERCENTILES)[];
const SUMMARY_PERCENTILE_VALUES = Object.values(SUMMARY_PERCENTILES);

/** Request statistics merged over any number of periods, threads or workers; merges are exact. */
export class RequestAggregate {
  requests = 0;
  failures = 0;
  /** Of `requests`, redirect hops (not judged by expectations or checks). */
  redirects = 0;
  /** WebSocket messages sent and received under this (handshake's) name. */
  messagesSent = 0;
  messagesReceived = 0;
  bytesIn = 0;
  bytesOut = 0;
  sumUs = 0;
  minUs = Number.POSITIVE_INFINITY;
  maxUs = 0;
  readonly statusCodes: Record<string, number> = {};
  readonly errors = new ErrorCounter();
  readonly histogram = createMergeHistogram();
  /** A script's gauge: its last, lowest and highest value so far. */
  gauge: GaugeStats | null = null;
  /** The slowest traced requests so far (`http.tracing`), slowest first. */
  slowest: SlowTrace[] = [];
  /** The timed requests' phases, once any were merged. */
  phases: PhaseTimings | null = null;

  constructor(
    readonly name: string,
    readonly method: string,
  ) {}

  /** `decoded`, `index`: the stats' histogram read already (DecodedHistograms), not read again. */
  add(stats: RequestStats, decoded?: DecodedHistograms, index = 0): void {
    // A second of a WebSocket's life may carry messages and no request.
    this.messagesSent += stats.messagesSent ?? 0;
    this.messagesReceived += stats.messagesReceived ?? 0;
    // Phases come every PHASES_PERIOD_S seconds, so they may arrive in a second of no request.
    if (stats.timings) this.mergedPhases().add(stats.timings, decoded, index);
    if (stats.requests === 0) {
      this.bytesIn += stats.bytesIn;
      this.bytesOut += stats.bytesOut;
      return;
    }
    this.requests += stats.requests;
    this.failures += stats.failures;
    this.redirects += stats.redirects ?? 0;
    this.bytesIn += stats.bytesIn;
    this.bytesOut += stats.bytesOut;
    this.sumUs += stats.latency.sumUs;
    this.minUs = Math.min(this.minUs, stats.latency.minUs);
    this.maxUs = Math.max(this.maxUs, stats.latency.maxUs);
    // for-in: no array per entry (the master merges a batch's every entry each second).
    for (const code in stats.statusCodes)
      this.statusCodes[code] = (this.statusCodes[code] ?? 0) + stats.statusCodes[code];
    this.errors.addAll(stats.errors);
    if (stats.gauge) this.addGauge(stats.gauge);
    if (stats.slowest) this.addSlowest(stats.slowest);
    if (decoded) decoded.addTo(this.histogram, index);
    else addEncodedHistogram(this.histogram, stats.latency.histogram);
  }

  addAggregate(other: RequestAggregate): void {
    this.messagesSent += other.messagesSent;
    this.messagesReceived += other.messagesReceived;
    if (other.phases) this.mergedPhases().addAll(other.phases);
    if (other.requests === 0) {
      this.bytesIn += other.bytesIn;
      this.bytesOut += other.bytesOut;
      return;
    }
    this.requests += other.requests;
    this.failures += other.failures;
    this.redirects += other.redirects;
    this.bytesIn += other.bytesIn;
    this.bytesOut += other.bytesOut;
    this.sumUs += other.sumUs;
    this.minUs = Math.min(this.minUs, other.minUs);
    this.maxUs = Math.max(this.maxUs, other.maxUs);
    // for-in: no array per entry (the master merges a batch's every entry each second).
    for (const code in other.statusCodes)
      this.statusCodes[code] = (this.statusCodes[code] ?? 0) + other.statusCodes[code];
    this.errors.addAll(other.errors.list());
    if (other.gauge) this.addGauge(other.gauge);
    if (other.slowest.length) this.slowest = mergeSlowest(this.slowest, other.slowest);
    addHistogram(this.histogram, other.histogram);
  }

  /**
   * Merges a period's slowest list (text), decoded only when its slowest entry can take a place:
   * a second's list per name, from each of many workers, mostly cannot (see slowest-text.ts).
   */
  private addSlowest(text: string): void {
    const full = this.slowest.length === MAX_SLOWEST;
    if (full && slowestTopMs(text) < this.slowest[MAX_SLOWEST - 1].ms) return;
    this.slowest = mergeSlowest(this.slowest, decodeSlowest(text));
  }

  private mergedPhases(): PhaseTimings {
    this.phases ??= new PhaseTimings(false);
    return this.phases;
  }

  private addGauge(gauge: GaugeStats): void {
    this.gauge = this.gauge ? laterGauge(this.gauge, gauge) : { ...gauge };
  }

  /** `phases: false` leaves the phases out (a stored second keeps none), and their encoding. */
  toStats({ phases = true }: { phases?: boolean } = {}): RequestStats {
    return {
      name: this.name,
      method: this.method,
      requests: this.requests,
      failures: this.failures,
      ...(this.redirects > 0 ? { redirects: this.redirects } : {}),
      ...(this.messagesSent > 0 ? { messagesSent: this.messagesSent } : {}),
      ...(this.messagesReceived > 0 ? { messagesReceived: this.messagesReceived } : {}),
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      statusCodes: { ...this.statusCodes },
      errors: this.errors.list(),
      latency: {
        sumUs: this.sumUs,
        minUs: this.requests ? this.minUs : 0,
        maxUs: this.maxUs,
        histogram: encodeHistogram(this.histogram),
      },
      ...(this.gauge ? { gauge: { ...this.gauge } } : {}),
      ...(this.slowest.length ? { slowest: encodeSlowest(this.slowest) } : {}),
      ...(phases && this.phases && this.phases.count > 0 ? { timings: this.phases.encode() } : {}),
    };
  }

  /** Latency in milliseconds: exact min/mean/max, percentiles from the histogram (±0.1%). */
  latencySummary(): LatencySummary {
    if (this.requests === 0) {
      return { min: 0, mean: 0, max: 0, p50: 0, p75: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
    }
    const ms = (us: number) => Math.round(us) / 1000;
    const summary = {
      min: ms(this.minUs),
      mean: ms(this.sumUs / this.requests),
      max: ms(this.maxUs),
    } as LatencySummary;
    const values = this.percentilesUs(SUMMARY_PERCENTILE_VALUES);
    SUMMARY_PERCENTILE_KEYS.forEach((key, k) => {
      summary[key] = ms(values[k]);
    });
    return summary;
  }

  /** The timed requests' phases as a summary gives them (p50/p95/p99 in ms), or none. */
  phaseSummary(): RequestSummary["timings"] {
    const phases = this.phases;
    if (!phases || phases.count === 0) return undefined;
    const [connectMs, tlsMs, waitingMs] = PHASES.map((phase) => phases.percentilesMs(phase));
    return { count: phases.count, connectMs, tlsMs, waitingMs };
  }

  /**
   * Latencies at several percentiles (ascending) in microseconds, each as percentileUs gives it,
   * read in one pass over the histogram; `out` receives them (and is returned).
   */
  percentilesUs(percentiles: readonly number[], out: number[] = []): number[] {
    if (this.requests === 0) {
      for (let k = 0; k < percentiles.length; k++) out[k] = 0;
      return out;
    }
    valuesAtPercentiles(this.histogram, percentiles, out);
    for (let k = 0; k < percentiles.length; k++) out[k] = Math.min(Math.max(out[k], this.minUs), this.maxUs);
    return out;
  }

  /** Latency at a percentile in microseconds, kept within the exact min and max. */
  percentileUs(percentile: number): number {
    if (this.requests === 0) return 0;
    const value = this.histogram.getValueAtPercentile(percentile);
    return Math.min(Math.max(value, this.minUs), this.maxUs);
  }
}
