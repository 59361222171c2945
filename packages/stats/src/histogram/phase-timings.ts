import { Float64Histogram, Int32Histogram } from "hdr-histogram-js";
import { addHistogram, type LatencyHistogram, recordWhole } from "./latency-histogram.js";
import {
  addEncodedHistogram,
  type DecodedHistograms,
  encodeHistogram,
  HistogramFormatError,
} from "./sparse-codec.js";

/**
 * The phases of a request (connect, TLS, waiting for the first byte) are kept in histograms of
 * their own shape: 1 µs to a minute at 2 significant digits (percentiles to 1 %), a tenth of a
 * latency histogram's size, since three of them ride beside every request name's.
 */
const HIGHEST_US = 60_000_000;
const DIGITS = 2;

export const PHASES = ["connect", "tls", "waiting"] as const;
export type Phase = (typeof PHASES)[number];

function create(recording: boolean): LatencyHistogram {
  const histogram = recording
    ? new Int32Histogram(1, HIGHEST_US, DIGITS)
    : new Float64Histogram(1, HIGHEST_US, DIGITS);
  histogram.autoResize = false;
  return histogram;
}

function clampUs(us: number): number {
  if (!(us > 0)) return 0;
  return us >= HIGHEST_US ? HIGHEST_US : Math.round(us);
}

/** What the phase histograms of a period travel as: how many requests were timed, each encoded. */
export interface EncodedPhases {
  count: number;
  connect: string;
  tls: string;
  waiting: string;
}

/**
 * The phases of one request name's requests: recorded on the request path, or merged. A phase
 * of no time (connect and TLS on a reused connection: most requests) is not recorded: `count`
 * less a histogram's values are its zeros, which keeps two histogram records off most requests.
 */
export class PhaseTimings {
  count = 0;
  private readonly histograms: Record<Phase, LatencyHistogram>;

  constructor(recording: boolean) {
    this.histograms = { connect: create(recording), tls: create(recording), waiting: create(recording) };
  }

  record(connectUs: number, tlsUs: number, waitingUs: number): void {
    this.count++;
    if (connectUs >= 1) recordWhole(this.histograms.connect, clampUs(connectUs));
    if (tlsUs >= 1) recordWhole(this.histograms.tls, clampUs(tlsUs));
    if (waitingUs >= 1) recordWhole(this.histograms.waiting, clampUs(waitingUs));
  }

  /**
   * `decoded`, `index`: the phases read already by phasesProblem into a batch's histograms (entry
   * `index`), not read again.
   */
  add(encoded: EncodedPhases, decoded?: DecodedHistograms, index = 0): void {
    this.count += encoded.count;
    for (let k = 0; k < PHASES.length; k++) {
      const histogram = this.histograms[PHASES[k]];
      if (!decoded?.addExtraTo(histogram, index, k)) addEncodedHistogram(histogram, encoded[PHASES[k]]);
    }
  }

  addAll(other: PhaseTimings): void {
    this.count += other.count;
    for (const phase of PHASES) addHistogram(this.histograms[phase], other.histograms[phase]);
  }

  encode(): EncodedPhases {
    return {
      count: this.count,
      connect: encodeHistogram(this.histograms.connect),
      tls: encodeHistogram(this.histograms.tls),
      waiting: encodeHistogram(this.histograms.waiting),
    };
  }

  /** Starts a new period (a recorder's). */
  reset(): void {
    if (this.count === 0) return;
    this.count = 0;
    for (const phase of PHASES) this.histograms[phase].reset();
  }

  /** A phase's p50, p95 and p99 in ms (over every timed request, its zeros first). */
  percentilesMs(phase: Phase): { p50: number; p95: number; p99: number } {
    const h = this.histograms[phase];
    const values = h.totalCount;
    const zeros = this.count - values;
    const ms = (p: number) => {
      const rank = Math.ceil((p / 100) * this.count);
      if (this.count === 0 || rank <= zeros) return 0;
      return Math.round(h.getValueAtPercentile(((rank - zeros) / values) * 100)) / 1000;
    };
    return { p50: ms(50), p95: ms(95), p99: ms(99) };
  }
}

/** Buckets of the phases' shape, read once. */
let bucketCount = 0;

/**
 * Why a batch's encoded phases cannot be merged, or null: each must decode within the phases'
 * shape and hold no more values than the requests timed, which no more than `maxTimed` (they
 * cover several seconds: see PHASES_PERIOD_S). They are read into `decoded` as the extras of
 * the entry whose latency it reads next, so that the merge does not read them again.
 */
export function phasesProblem(
  encoded: EncodedPhases,
  maxTimed: number,
  decoded: DecodedHistograms,
): string | null {
  if (encoded.count > maxTimed) return "more timed requests than the seconds they cover can hold";
  bucketCount ||= create(false).countsArrayLength;
  for (const phase of PHASES) {
    let values: number;
    try {
      values = decoded.readExtra(encoded[phase], bucketCount);
    } catch (error) {
      if (error instanceof HistogramFormatError) return `${phase} timings: ${error.message}`;
      throw error;
    }
    if (values > encoded.count) return `${phase} timings hold more values than requests timed`;
  }
  return null;
}
