import { Float64Histogram, Int32Histogram, type JsHistogram } from "hdr-histogram-js";

/** Every latency histogram in Volley has this shape, so sparse indexes mean the same everywhere. */
export const LOWEST_US = 1;
/** One hour in microseconds; longer latencies are recorded as one hour. */
export const HIGHEST_US = 3_600_000_000;
export const SIGNIFICANT_DIGITS = 3;

export type LatencyHistogram = JsHistogram;

/** For the request path: 32-bit counts, reset every second. */
export function createRecordingHistogram(): LatencyHistogram {
  const histogram = new Int32Histogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS);
  histogram.autoResize = false;
  return histogram;
}

/** For merges that last a whole run: 64-bit float counts never overflow. */
export function createMergeHistogram(): LatencyHistogram {
  const histogram = new Float64Histogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS);
  histogram.autoResize = false;
  return histogram;
}

/**
 * Records a whole number below 2^32 in `histogram` exactly as `recordValue` does, without its
 * `Math.pow` and `Math.log2` per value (two of them ride every request: its latency and its
 * waiting phase): the bucket comes from the count of leading zeros. A value past the
 * histogram's range goes through `recordValue` (which throws, as it would have).
 */
export function recordWhole(histogram: LatencyHistogram, value: number): void {
  const halfMagnitude = histogram.subBucketHalfCountMagnitude;
  const unit = histogram.unitMagnitude;
  const bucket = Math.max(31 - Math.clz32(value) - halfMagnitude - unit, 0);
  const index = ((bucket + 1) << halfMagnitude) + (value >>> (bucket + unit)) - histogram.subBucketHalfCount;
  if (value > 0xffffffff || index >= histogram.countsArrayLength) {
    histogram.recordValue(value);
    return;
  }
  histogram.incrementCountAtIndex(index);
  histogram.updateMinAndMax(value);
  histogram.incrementTotalCount();
}

/** Latency in whole microseconds within the histogram's range. */
export function clampLatencyUs(us: number): number {
  if (!(us > 0)) return 0;
  return us >= HIGHEST_US ? HIGHEST_US : Math.round(us);
}

/**
 * A merge histogram's counts array, to add into without a call and a range check per bucket
 * (the master adds millions of buckets a minute); null for any other histogram. hdr-histogram-js
 * keeps it in `_counts` (pinned version: the checks below fall back to its methods if it moves).
 */
export function countsOf(histogram: LatencyHistogram): Float64Array | null {
  if (!(histogram instanceof Float64Histogram)) return null;
  const counts = (histogram as unknown as { _counts?: unknown })._counts;
  return counts instanceof Float64Array && counts.length === histogram.countsArrayLength ? counts : null;
}

/**
 * Adds `source` into `target` as `target.add(source)` does, through the counts arrays when both
 * are merge histograms of one shape (hdr-histogram-js calls two methods per bucket: a run's
 * totals add every request name's ~20,000 buckets at each checkpoint).
 */
export function addHistogram(target: LatencyHistogram, source: LatencyHistogram): void {
  const into = countsOf(target);
  const from = countsOf(source);
  if (into === null || from === null || into.length !== from.length) {
    target.add(source);
    return;
  }
  const total = source.totalCount;
  if (total === 0) return;
  if (target.totalCount + total > Number.MAX_SAFE_INTEGER) throw new Error("histogram count overflow");
  for (let i = 0; i < from.length; i++) {
    const count = from[i];
    if (count !== 0) into[i] += count;
  }
  target.addToTotalCount(total);
  target.updateMinAndMax(source.maxValue);
  target.updateMinAndMax(source.minNonZeroValue);
}
