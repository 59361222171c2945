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
