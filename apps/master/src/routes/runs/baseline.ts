import { baselineQuerySchema, parseWith, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import { findBaselineRun } from "../../runs/baseline-run.js";

/**
 * GET /api/runs/:id/baseline?which=last|pinned: the run `volley run --baseline` compares with,
 * by the rule scheduled runs are judged by (one rule, here).
 */
export async function baselineRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>("/:id/baseline", { config: VIEWER_ROUTE }, async (request) => {
    const { db } = app.services;
    const run = await db.runs.get(request.params.id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    const { which } = parseWith(baselineQuerySchema, request.query, "query");
    const id = await findBaselineRun(db, run, which);
    if (id) return { id };
    throw new VolleyError(
      "VOL_ERR_NOT_FOUND",
      which === "pinned"
        ? `no run named "${run.name}" is pinned (pin one on /trends)`
        : `no earlier finished run named "${run.name}"`,
    );
  });
}
