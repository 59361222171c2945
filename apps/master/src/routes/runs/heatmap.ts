import type { LatencyHeatmap, RequestStats } from "@volley/protocol";
import { VolleyError } from "@volley/protocol";
import { latencyHeatmap, StatsAggregate } from "@volley/stats";
import type { FastifyInstance } from "fastify";
import { unpackSecondStats } from "../../pipeline/second-rows.js";

/**
 * GET /api/runs/:id/heatmap: each stored second's requests counted by latency bucket, from the
 * seconds' merged histograms (every request of the second, every worker's).
 */
export async function heatmapRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>("/:id/heatmap", async (request): Promise<LatencyHeatmap> => {
    const { db } = app.services;
    const run = await db.runs.get(request.params.id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    const bySecond = new Map<number, RequestStats[]>();
    for (const row of await db.seconds.statsBySecond(run.id)) {
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
  });
}
