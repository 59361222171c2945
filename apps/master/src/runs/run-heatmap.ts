import type { Database } from "@volley/db";
import { isRequestMethod, type LatencyHeatmap, type LatencyStats } from "@volley/protocol";
import { latencyHeatmap } from "@volley/stats";
import { unpackSecondStats } from "../pipeline/second-rows.js";

/** Stored rows unpacked between turns of the event loop: a long run's heatmap never stalls the master's merging. */
const ROWS_PER_TURN = 2000;

/**
 * A run's latency heatmap from its stored seconds: each second's whole-run statistics (one row
 * a second: an hour reads 3,600 rows, not one per request name), or, for runs stored before
 * those were kept, every request name's of the second.
 */
export async function heatmapOfRun(seconds: Database["seconds"], runId: string): Promise<LatencyHeatmap> {
  const ofRun = await seconds.statsBySecond(runId, "run");
  const rows = ofRun.length > 0 ? ofRun : await seconds.statsBySecond(runId, "names");
  const bySecond = new Map<number, LatencyStats[]>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const { second, stats } = rows[i];
    const unpacked = unpackSecondStats(stats);
    // The whole run's statistics count requests only; a name's row may be a stream's messages.
    if (ofRun.length === 0 && !isRequestMethod(unpacked.method)) continue;
    const latencies = bySecond.get(second) ?? [];
    latencies.push(unpacked.latency);
    bySecond.set(second, latencies);
  }
  return latencyHeatmap([...bySecond].map(([second, latencies]) => ({ second, latencies })));
}
