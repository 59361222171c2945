import { HEATMAP_BUCKETS, type LatencyHeatmap, type LatencyStats } from "@volley/protocol";
import { createMergeHistogram } from "./histogram/latency-histogram.js";
import { forEachEncodedBucket } from "./histogram/sparse-codec.js";

/** Each histogram bucket's value (µs), once: every histogram in Volley has the same buckets. */
let bucketValues: Float64Array | null = null;
function histogramBucketValues(): Float64Array {
  if (!bucketValues) {
    const shape = createMergeHistogram();
    bucketValues = Float64Array.from({ length: shape.countsArrayLength }, (_, i) => shape.valueFromIndex(i));
  }
  return bucketValues;
}

/**
 * A heatmap of the seconds' latencies: every request of every second counted into one of
 * HEATMAP_BUCKETS log-spaced buckets between the run's fastest and slowest request. Counted
 * straight from each histogram's buckets (none is built or merged), so none is lost and none
 * counted twice. Each second's `latencies` are what it measured: the whole run's merged
 * histogram, or each request name's (the caller leaves out what is no request).
 */
export function latencyHeatmap(
  seconds: ReadonlyArray<{ second: number; latencies: readonly LatencyStats[] }>,
): LatencyHeatmap {
  const measured = (latencies: readonly LatencyStats[]) => latencies.filter((l) => l.histogram !== "");
  let lowUs = Number.POSITIVE_INFINITY;
  let highUs = 0;
  for (const { latencies } of seconds) {
    for (const latency of measured(latencies)) {
      lowUs = Math.min(lowUs, latency.minUs);
      highUs = Math.max(highUs, latency.maxUs);
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
  // Each histogram bucket's heatmap bucket, worked out once: an hour of busy seconds reads
  // tens of millions of buckets, and a lookup is what keeps that well under a second.
  const values = histogramBucketValues();
  const heatmapBucket = Uint8Array.from(values, (us) => bucketOf(Math.max(us, 1)));
  const out: LatencyHeatmap = { seconds: [], edgesMs, counts: [] };
  for (const { second, latencies } of [...seconds].sort((a, b) => a.second - b.second)) {
    const histograms = measured(latencies);
    if (histograms.length === 0) continue;
    const row = new Array<number>(HEATMAP_BUCKETS).fill(0);
    for (const latency of histograms) {
      forEachEncodedBucket(latency.histogram, (index, count) => {
        row[heatmapBucket[index]] += count;
      });
    }
    out.seconds.push(second);
    out.counts.push(row);
  }
  return out;
}
