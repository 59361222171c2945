import { parseWith, reportQuerySchema, VolleyError } from "@volley/protocol";
import { latencyDistribution } from "@volley/stats";
import type { FastifyInstance } from "fastify";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import { renderCsvReport } from "../../reports/csv-report.js";
import { renderHtmlReport } from "../../reports/html-report.js";
import { heatmapOfRun } from "../../runs/run-heatmap.js";
import { toTimeseries } from "../../runs/run-views.js";

const FORMATS = {
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  html: "text/html; charset=utf-8",
} as const;

/** GET /api/runs/:id/report.{json,csv,html}: reports, as files or (HTML) as a page. */
export async function reportRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string; format: string }; Querystring: unknown }>(
    "/:id/report.:format",
    { config: VIEWER_ROUTE },
    async (request, reply) => {
      const { id, format } = request.params;
      const { download } = parseWith(reportQuerySchema, request.query, "query");
      if (!Object.hasOwn(FORMATS, format)) {
        throw new VolleyError("VOL_ERR_NOT_FOUND", `no report format "${format}": use json, csv or html`);
      }
      const found = await app.services.scheduler.detailAndStats(id);
      if (!found) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${id}`);
      const { detail, stats } = found;
      const fileName = `volley-${detail.name.replace(/[^A-Za-z0-9_-]+/g, "-")}-${id}.${format}`;
      reply.header("content-type", FORMATS[format as keyof typeof FORMATS]);
      // The HTML report is a page to read (the dashboard opens it in a tab); the others are files.
      const saved = download === undefined ? format !== "html" : download === "1";
      reply.header("content-disposition", `${saved ? "attachment" : "inline"}; filename="${fileName}"`);
      if (format === "json") return JSON.stringify(detail, null, 2);
      if (format === "csv") return renderCsvReport(detail);
      const { seconds } = app.services.db;
      return renderHtmlReport(
        detail,
        toTimeseries(await seconds.list(id)),
        latencyDistribution(stats),
        await heatmapOfRun(seconds, id),
      );
    },
  );
}
