import { type CompareResult, parseWith, VolleyError } from "@volley/protocol";
import { compareSummaries, latencyShifts } from "@volley/stats";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";

const compareQuerySchema = z.strictObject({ a: z.string().min(1).max(64), b: z.string().min(1).max(64) });

/** GET /api/compare?a=ID&b=ID: two summaries side by side with deltas (b relative to a). */
export async function compareRoutes(app: FastifyInstance): Promise<void> {
  app.get("/", { config: VIEWER_ROUTE }, async (request): Promise<CompareResult> => {
    const { a, b } = parseWith(compareQuerySchema, request.query, "query");
    const { scheduler } = app.services;
    // Each run's report and histograms are read once.
    const [runA, runB] = await Promise.all([scheduler.detailAndStats(a), scheduler.detailAndStats(b)]);
    if (!runA) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${a}`);
    if (!runB) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${b}`);
    const shift = latencyShifts(runA.stats.total(), runB.stats.total());
    return {
      a: runA.detail,
      b: runB.detail,
      ...compareSummaries(runA.detail.summary, runB.detail.summary),
      shift,
    };
  });
}
