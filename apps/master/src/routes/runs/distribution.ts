import { type LatencyDistribution, VolleyError } from "@volley/protocol";
import { latencyDistribution } from "@volley/stats";
import type { FastifyInstance } from "fastify";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";

/**
 * GET /api/runs/:id/distribution: latency by percentile (0 to 99.99 %, then the maximum) of the
 * whole run and of each request, read from the run's merged histograms (live while it runs).
 */
export async function distributionRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    "/:id/distribution",
    { config: VIEWER_ROUTE },
    async (request): Promise<LatencyDistribution> => {
      const stats = await app.services.scheduler.stats(request.params.id);
      if (!stats) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
      return latencyDistribution(stats);
    },
  );
}
