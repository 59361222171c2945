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

/** Latency in whole microseconds within the histogram's range. */
export function clampLatencyUs(us: number): number {
  if (!(us > 0)) return 0;
  return us >= HIGHEST_US ? HIGHEST_US : Math.round(us);
}
