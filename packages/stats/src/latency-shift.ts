import type { LatencyShift, ShiftPercentile } from "@volley/protocol";
import type { LatencyHistogram } from "./histogram/latency-histogram.js";
import { type RequestAggregate, SUMMARY_PERCENTILES } from "./request-aggregate.js";

/** Values above `valueUs`, counting a value in the same histogram bucket as equal to it. */
export function countAbove(histogram: LatencyHistogram, valueUs: number): number {
  const last = histogram.countsArrayIndex(valueUs);
  let atOrBelow = 0;
  for (let index = 0; index <= last && index < histogram.countsArrayLength; index++) {
    atOrBelow += histogram.getCountAtIndex(index);
  }
  return histogram.totalCount - atOrBelow;
}

/**
 * Judges a percentile on whole distributions rather than on two noisy numbers: take the
 * baseline's value at the percentile, count how many of the current run's requests are slower
 * than it, and compare that share with the baseline's own share above it. A two-proportion z
 * statistic says whether the difference is more than sampling noise: a p99 from 300 requests can
 * move 20 % by chance, while 9 % of 50,000 requests above the old p95 (instead of 5 %) cannot.
 */
export function latencyShift(
  baseline: RequestAggregate,
  current: RequestAggregate,
  percentile: number,
): LatencyShift | null {
  const nA = baseline.histogram.totalCount;
  const nB = current.histogram.totalCount;
  if (nA === 0 || nB === 0) return null;
  const valueUs = baseline.percentileUs(percentile);
  const aboveA = countAbove(baseline.histogram, valueUs);
  const aboveB = countAbove(current.histogram, valueUs);
  const pooled = (aboveA + aboveB) / (nA + nB);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / nA + 1 / nB));
  const difference = aboveB / nB - aboveA / nA;
  return {
    aMs: Math.round(valueUs) / 1000,
    aShare: aboveA / nA,
    bShare: aboveB / nB,
    // Both shares 0 (or 1): no spread, and no difference to judge either.
    z: se > 0 ? difference / se : 0,
  };
}

/** Every summary percentile of `current` against `baseline`'s, as `GET /api/compare` reports it. */
export function latencyShifts(
  baseline: RequestAggregate,
  current: RequestAggregate,
): Partial<Record<ShiftPercentile, LatencyShift>> {
  const out: Partial<Record<ShiftPercentile, LatencyShift>> = {};
  for (const [key, percentile] of Object.entries(SUMMARY_PERCENTILES)) {
    const shift = latencyShift(baseline, current, percentile);
    if (shift) out[key as ShiftPercentile] = shift;
  }
  return out;
}
