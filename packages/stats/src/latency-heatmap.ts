import { HEATMAP_BUCKETS, type LatencyHeatmap } from "@volley/protocol";
import type { RequestAggregate } from "./request-aggregate.js";

/**
 * A heatmap of the seconds' latencies: every request of every second counted into one of
 * HEATMAP_BUCKETS log-spaced buckets between the run's fastest and slowest request. Counts come
 * from each second's merged histogram (bucket by bucket of the histogram, so none is lost).
 */
export function latencyHeatmap(
  seconds: ReadonlyArray<{ second: number; aggregate: RequestAggregate }>,
): LatencyHeatmap {
  const measured = seconds.filter((s) => s.aggregate.histogram.totalCount > 0);
  if (measured.length === 0) return { seconds: [], edgesMs: [], counts: [] };
  const lowUs = Math.max(1, Math.min(...measured.map((s) => s.aggregate.histogram.minNonZeroValue)));
  const highUs = Math.max(lowUs * 2, ...measured.map((s) => s.aggregate.histogram.maxValue));
  const span = Math.log(highUs / lowUs);
  const edgesMs = Array.from(
    { length: HEATMAP_BUCKETS + 1 },
    (_, i) => Math.round(lowUs * Math.exp((span * i) / HEATMAP_BUCKETS)) / 1000,
  );
  const bucketOf = (us: number) =>
    Math.min(HEATMAP_BUCKETS - 1, Math.max(0, Math.floor((Math.log(us / lowUs) / span) * HEATMAP_BUCKETS)));
  const counts = measured.map(({ aggregate }) => {
    const row = new Array<number>(HEATMAP_BUCKETS).fill(0);
    const { histogram } = aggregate;
    // Only the indexes between this second's fastest and slowest: an hour of seconds stays quick.
    const first = histogram.countsArrayIndex(histogram.minNonZeroValue);
    const last = Math.min(histogram.countsArrayIndex(histogram.maxValue), histogram.countsArrayLength - 1);
    for (let index = first; index <= last; index++) {
      const count = histogram.getCountAtIndex(index);
      if (count > 0) row[bucketOf(histogram.valueFromIndex(index))] += count;
    }
    return row;
  });
  return { seconds: measured.map((s) => s.second), edgesMs, counts };
}
