import {
  parseWith,
  type RunSummary,
  statsNames,
  summaryWindowQuerySchema,
  VolleyError,
} from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import type { FastifyInstance } from "fastify";
import { describeSummary } from "../../pipeline/run-summary.js";
import { unpackSecondStats } from "../../pipeline/second-rows.js";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import { runColumns } from "../../runs/run-columns.js";

/**
 * GET /api/runs/:id/summary?from=S&to=S: the summary of seconds [from, to) since the start,
 * merged from each second's stored histograms (exact percentiles, as the whole run's are).
 */
export async function windowRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    "/:id/summary",
    { config: VIEWER_ROUTE },
    async (request): Promise<RunSummary> => {
      const { db } = app.services;
      const run = await db.runs.get(request.params.id);
      if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
      const { from, to } = parseWith(summaryWindowQuerySchema, request.query, "query");
      const cutoff = app.services.retention.cutoff();
      if (cutoff && run.finishedAt && run.finishedAt < cutoff) {
        throw new VolleyError(
          "VOL_ERR_EXPIRED",
          `run ${run.id} ended more than ${app.services.config.keepSecondsDays} days ago: its per-second statistics were dropped (its report and totals remain)`,
        );
      }
      const stats = new StatsAggregate();
      stats.add((await db.seconds.statsBetween(run.id, from, to)).map(unpackSecondStats));
      const scenario = runColumns.scenario(run);
      return describeSummary(stats.summarize(to - from, statsNames(scenario)), scenario, stats);
    },
  );
}
