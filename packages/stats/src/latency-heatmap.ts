import { HEATMAP_BUCKETS, isRequestMethod, type LatencyHeatmap, type RequestStats } from "@volley/protocol";
import { createMergeHistogram } from "./histogram/latency-histogram.js";
import { forEachEncodedBucket } from "./histogram/sparse-codec.js";

/** Each histogram bucket's value (µs), once: every histogram in Volley has the same buckets. */
let bucketValues: Float64Array | null = null;
function valueOfBucket(index: number): number {
  if (!bucketValues) {
    const shape = createMergeHistogram();
    bucketValues = Float64Array.from({ length: shape.countsArrayLength }, (_, i) => shape.valueFromIndex(i));
  }
  return bucketValues[index];
}

/**
 * A heatmap of the seconds' latencies: every request of every second counted into one of
 * HEATMAP_BUCKETS log-spaced buckets between the run's fastest and slowest request. Counted
 * straight from each stored histogram's buckets (no histogram is built or merged: an hour of
 * seconds of 20 request names stays quick), so none is lost and none counted twice.
 */
export function latencyHeatmap(
  seconds: ReadonlyArray<{ second: number; stats: readonly RequestStats[] }>,
): LatencyHeatmap {
  const requests = (stats: readonly RequestStats[]) =>
    stats.filter((s) => isRequestMethod(s.method) && s.latency.histogram !== "");
  let lowUs = Number.POSITIVE_INFINITY;
  let highUs = 0;
  for (const { stats } of seconds) {
    for (const s of requests(stats)) {
      lowUs = Math.min(lowUs, s.latency.minUs);
      highUs = Math.max(highUs, s.latency.maxUs);
    }
  }
  if (highUs === 0) return { seconds: [], edgesMs: [], counts: [] };
  lowUs = Math.max(1, lowUs);
  highUs = Math.max(highUs, lowUs * 2);
  const span = Math.log(highUs / lowUs);
  const edgesMs = Array.from(
    { length: HEATMAP_BUCKETS + 1 },
    (_, i) => Math.round(lowUs * Math.exp((span * i) / HEATMAP_BUCKETS)) / 1000,
  );
  const bucketOf = (us: number) =>
    Math.min(HEATMAP_BUCKETS - 1, Math.max(0, Math.floor((Math.log(us / lowUs) / span) * HEATMAP_BUCKETS)));
  const out: LatencyHeatmap = { seconds: [], edgesMs, counts: [] };
  for (const { second, stats } of [...seconds].sort((a, b) => a.second - b.second)) {
    const measured = requests(stats);
    if (measured.length === 0) continue;
    const row = new Array<number>(HEATMAP_BUCKETS).fill(0);
    for (const s of measured) {
      forEachEncodedBucket(s.latency.histogram, (index, count) => {
        row[bucketOf(Math.max(valueOfBucket(index), 1))] += count;
      });
    }
    out.seconds.push(second);
    out.counts.push(row);
  }
  return out;
}
