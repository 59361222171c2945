import type { Database } from "@volley/db";
import type { LatencyHeatmap, RequestStats } from "@volley/protocol";
import { latencyHeatmap, StatsAggregate } from "@volley/stats";
import { unpackSecondStats } from "../pipeline/second-rows.js";

/** A run's latency heatmap from its stored seconds: every request of each second, all workers'. */
export async function runHeatmap(db: Database, runId: string): Promise<LatencyHeatmap> {
  const bySecond = new Map<number, RequestStats[]>();
  for (const row of await db.seconds.statsBySecond(runId)) {
    const stats = bySecond.get(row.second) ?? [];
    stats.push(unpackSecondStats(row.stats));
    bySecond.set(row.second, stats);
  }
  const seconds = [...bySecond].map(([second, stats]) => {
    const merged = new StatsAggregate();
    merged.add(stats);
    return { second, aggregate: merged.total() };
  });
  return latencyHeatmap(seconds);
}
