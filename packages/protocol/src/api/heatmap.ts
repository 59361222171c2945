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

/** A heatmap's seconds merged into columns, for drawing it no wider than it has room for. */
export interface HeatmapColumns {
  /** Seconds per column (1 when every second has room of its own). */
  perColumn: number;
  /** Columns from the run's start (the first covers seconds 0 to perColumn - 1). */
  count: number;
  /** The columns that hold requests: their index and their counts by latency bucket. */
  columns: Array<{ column: number; counts: number[] }>;
  /** The largest count of any cell: the darkest. */
  most: number;
}

/**
 * The heatmap's seconds summed into at most `maxColumns` columns (every request still counted
 * once): an hour of seconds drawn in 1,300 px, or 300 columns in the HTML report.
 */
export function heatmapColumns(heatmap: LatencyHeatmap, maxColumns: number): HeatmapColumns {
  const span = heatmap.seconds.length ? heatmap.seconds[heatmap.seconds.length - 1] + 1 : 1;
  const perColumn = Math.max(1, Math.ceil(span / Math.max(1, Math.floor(maxColumns))));
  const buckets = Math.max(0, heatmap.edgesMs.length - 1);
  const byColumn = new Map<number, number[]>();
  heatmap.seconds.forEach((second, i) => {
    const column = Math.floor(second / perColumn);
    let into = byColumn.get(column);
    if (!into) {
      into = new Array<number>(buckets).fill(0);
      byColumn.set(column, into);
    }
    const row = heatmap.counts[i];
    for (let bucket = 0; bucket < buckets; bucket++) into[bucket] += row[bucket] ?? 0;
  });
  let most = 1;
  for (const counts of byColumn.values()) for (const count of counts) if (count > most) most = count;
  const columns = [...byColumn].map(([column, counts]) => ({ column, counts }));
  return { perColumn, count: Math.ceil(span / perColumn), columns, most };
}

/** A cell's opacity: the log of its count (one slow request among thousands still shows). */
export function heatmapOpacity(count: number, most: number): number {
  return 0.12 + 0.88 * (Math.log1p(count) / Math.log1p(most));
}
