import { parseWith, type TrendPoint } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";

const trendsQuerySchema = z.strictObject({
  name: z.string().min(1).max(200),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * GET /api/trends?name=NAME&limit=N: the last N finished runs of that scenario name, oldest
 * first, with their exact merged percentiles and trust verdict (from each run's report).
 */
export async function trendRoutes(app: FastifyInstance): Promise<void> {
  app.get("/", { config: VIEWER_ROUTE }, async (request): Promise<TrendPoint[]> => {
    const { name, limit } = parseWith(trendsQuerySchema, request.query, "query");
    const { db, scheduler } = app.services;
    // The list filters by substring: keep the exact name, newest first, then the limit.
    const rows = (await db.runs.list({ name, status: "finished", limit: 200 }))
      .filter((row) => row.name === name)
      .slice(0, limit);
    const points: TrendPoint[] = [];
    for (const row of rows.reverse()) {
      const detail = await scheduler.detail(row.id);
      if (!detail) continue;
      const t = detail.summary.total;
      points.push({
        id: detail.id,
        startedAt: detail.startedAt,
        rps: t.rps,
        errorRate: t.requests ? t.failures / t.requests : 0,
        p50: t.latencyMs.p50,
        p95: t.latencyMs.p95,
        p99: t.latencyMs.p99,
        verdict: detail.trust.verdict,
        pinned: row.pinned,
      });
    }
    return points;
  });
}
