import type { LatencyHeatmap, RequestStats } from "@volley/protocol";
import { latencyHeatmap } from "@volley/stats";
import { unpackSecondStats } from "../pipeline/second-rows.js";

/** Stored rows unpacked between turns of the event loop: a long run's heatmap never stalls the master's merging. */
const ROWS_PER_TURN = 2000;

/**
 * A run's latency heatmap from its stored seconds (rows without statistics, such as the whole
 * run's, are passed over): every request of each second, all workers'.
 */
export async function heatmapOfSeconds(
  rows: ReadonlyArray<{ second: number; stats: Uint8Array | null }>,
): Promise<LatencyHeatmap> {
  const bySecond = new Map<number, RequestStats[]>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const { second, stats } = rows[i];
    if (stats === null) continue;
    const seconds = bySecond.get(second) ?? [];
    seconds.push(unpackSecondStats(stats));
    bySecond.set(second, seconds);
  }
  return latencyHeatmap([...bySecond].map(([second, stats]) => ({ second, stats })));
}
