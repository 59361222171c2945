import { type LatencyHeatmap, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import { heatmapOfRun } from "../../runs/run-heatmap.js";

/**
 * GET /api/runs/:id/heatmap: each stored second's requests counted by latency bucket, from the
 * seconds' merged histograms (every request of the second, every worker's).
 */
export async function heatmapRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    "/:id/heatmap",
    { config: VIEWER_ROUTE },
    async (request): Promise<LatencyHeatmap> => {
      const { db } = app.services;
      const run = await db.runs.get(request.params.id);
      if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
      return heatmapOfRun(db.seconds, run.id);
    },
  );
}
