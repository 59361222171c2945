/**
 * `GET /api/runs/:id/heatmap`: how many requests of each second took how long. `edgesMs` are the
 * latency buckets' bounds (log-spaced, `edgesMs.length - 1` buckets); `counts[i][j]` is the
 * requests of `seconds[i]` in bucket j (from its lower bound, below the next).
 */
export interface LatencyHeatmap {
  seconds: number[];
  edgesMs: number[];
  counts: number[][];
}

/** Latency buckets of a heatmap: enough to see a second mode, few enough to read. */
export const HEATMAP_BUCKETS = 40;

/** Where a latency sits on a heatmap's (log) latency axis: 0 at its first bound, 1 at its last. */
export function heatmapHeight(heatmap: Pick<LatencyHeatmap, "edgesMs">, ms: number): number {
  const low = heatmap.edgesMs[0];
  const high = heatmap.edgesMs[heatmap.edgesMs.length - 1];
  return Math.log(Math.max(ms, low) / low) / Math.log(high / low);
}
