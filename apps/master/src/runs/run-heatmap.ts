import type { Database } from "@volley/db";
import type { LatencyHeatmap, RequestStats } from "@volley/protocol";
import { latencyHeatmap } from "@volley/stats";
import { unpackSecondStats } from "../pipeline/second-rows.js";

/** Stored rows unpacked between turns of the event loop: a long run's heatmap never stalls the master's merging. */
const ROWS_PER_TURN = 2000;

/** A run's latency heatmap from its stored seconds: every request of each second, all workers'. */
export async function runHeatmap(db: Database, runId: string): Promise<LatencyHeatmap> {
  const bySecond = new Map<number, RequestStats[]>();
  const rows = await db.seconds.statsBySecond(runId);
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const stats = bySecond.get(rows[i].second) ?? [];
    stats.push(unpackSecondStats(rows[i].stats));
    bySecond.set(rows[i].second, stats);
  }
  return latencyHeatmap([...bySecond].map(([second, stats]) => ({ second, stats })));
}
