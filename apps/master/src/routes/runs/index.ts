import {
  createRunBodySchema,
  listRunsQuerySchema,
  loadPatchSchema,
  MAX_DATA_BYTES,
  parseWith,
  scenarioNames,
  timeseriesQuerySchema,
  ValidationError,
  VolleyError,
} from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { recordedActor } from "../../access/actor.js";
import { TESTER_ROUTE, VIEWER_ROUTE } from "../../plugins/route-access.js";
import { runColumns } from "../../runs/run-columns.js";
import { scenarioTimeseries, toListItem, toTimeseries } from "../../runs/run-views.js";
import { baselineRoutes } from "./baseline.js";
import { distributionRoutes } from "./distribution.js";
import { heatmapRoutes } from "./heatmap.js";
import { reportRoutes } from "./reports.js";
import { windowRoutes } from "./window.js";

/** Runs: start, history, one run, its time series, stop; reports beside. */
export async function runRoutes(app: FastifyInstance): Promise<void> {
  // Feeder files travel in the body: room for them, on this route only.
  app.post(
    "/",
    { config: TESTER_ROUTE, bodyLimit: MAX_DATA_BYTES + app.services.config.bodyLimit },
    async (request, reply) => {
      const body = parseWith(createRunBodySchema, request.body ?? {}, "request body");
      if (body.scenario === undefined)
        throw new VolleyError("VOL_ERR_VALIDATION", 'the body needs a "scenario"');
      const created = await app.services.scheduler.create(body.scenario, {
        files: body.files,
        env: body.env,
        attachments: body.attachments,
        filesFrom: body.filesFrom,
        scripts: body.scripts,
        queue: body.queue,
        typecheck: body.typecheck,
        startedBy: recordedActor(request.actor),
      });
      await app.services.audit.record(request.actor, "run.start", created.id, created.status);
      return reply.code(201).send(created);
    },
  );

  app.get<{ Params: { id: string } }>("/:id/files", { config: VIEWER_ROUTE }, async (request) => {
    const { db } = app.services;
    if (!(await db.runs.get(request.params.id)))
      throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    return { files: await db.files.list(request.params.id) };
  });

  // The sources of the run's scripts, as sent: what ran, viewable on the run page and reused by "Run again".
  app.get<{ Params: { id: string } }>("/:id/scripts", { config: VIEWER_ROUTE }, async (request) => {
    const { db } = app.services;
    if (!(await db.runs.get(request.params.id)))
      throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    const kept = await db.files.contents(request.params.id);
    return {
      files: Object.fromEntries(
        kept.filter((f) => f.kind === "script").map((f) => [f.name, f.content.toString("utf8")]),
      ),
    };
  });

  app.get("/", { config: VIEWER_ROUTE }, async (request) => {
    const query = parseWith(listRunsQuerySchema, request.query, "query");
    const rows = await app.services.db.runs.list({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    return {
      runs: page.map(toListItem),
      nextCursor: rows.length > query.limit ? page[page.length - 1].id : null,
    };
  });

  app.get<{ Params: { id: string } }>("/:id", { config: VIEWER_ROUTE }, async (request) => {
    const detail = await app.services.scheduler.detail(request.params.id);
    if (!detail) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    return detail;
  });

  app.get<{ Params: { id: string }; Querystring: { scenario?: unknown } }>(
    "/:id/timeseries",
    { config: VIEWER_ROUTE },
    async (request) => {
      const { db } = app.services;
      const run = await db.runs.get(request.params.id);
      if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
      const { scenario: wanted } = parseWith(timeseriesQuerySchema, request.query, "query");
      const series = toTimeseries(await db.seconds.list(request.params.id));
      if (wanted === undefined) return series;
      const parts = scenarioNames(runColumns.scenario(run));
      if (!parts.includes(wanted)) {
        throw new ValidationError("query", [
          {
            path: "scenario",
            message: parts.length
              ? `run ${run.id} has no scenario "${wanted}" (it has ${parts.join(", ")})`
              : `run ${run.id} has no scenarios: to filter by`,
          },
        ]);
      }
      return scenarioTimeseries(series, wanted, parts);
    },
  );

  // The baseline of a scenario name: `volley run --baseline pinned` and the trends page use it.
  app.post<{ Params: { id: string } }>("/:id/pin", { config: TESTER_ROUTE }, async (request) => {
    const { db } = app.services;
    const run = await db.runs.get(request.params.id);
    if (!run) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run ${request.params.id}`);
    if (run.status !== "finished") {
      throw new VolleyError(
        "VOL_ERR_NOT_FINISHED",
        `run ${run.id} is ${run.status}: only a finished run can be a baseline`,
      );
    }
    await db.transaction((tx) => tx.runs.pin(run.id, run.name));
    await app.services.audit.record(request.actor, "run.pin", run.id, run.name);
    return { id: run.id, name: run.name, pinned: true };
  });

  app.patch<{ Params: { id: string } }>("/:id/load", { config: TESTER_ROUTE }, async (request) => {
    const patch = parseWith(loadPatchSchema, request.body, "request body");
    const loadChanges = await app.services.scheduler.changeLoad(
      request.params.id,
      patch,
      recordedActor(request.actor),
    );
    await app.services.audit.record(request.actor, "run.load", request.params.id, JSON.stringify(patch));
    return { id: request.params.id, loadChanges };
  });

  app.post<{ Params: { id: string } }>("/:id/rebalance", { config: TESTER_ROUTE }, async (request) => {
    const loadChanges = await app.services.scheduler.rebalance(
      request.params.id,
      recordedActor(request.actor),
    );
    await app.services.audit.record(request.actor, "run.rebalance", request.params.id);
    return { id: request.params.id, loadChanges };
  });

  app.post<{ Params: { id: string } }>("/:id/stop", { config: TESTER_ROUTE }, async (request, reply) => {
    const status = await app.services.scheduler.stopRun(
      request.params.id,
      "user",
      recordedActor(request.actor),
    );
    await app.services.audit.record(request.actor, "run.stop", request.params.id, status);
    return reply.code(202).send({ id: request.params.id, status });
  });

  await app.register(reportRoutes);
  await app.register(windowRoutes);
  await app.register(distributionRoutes);
  await app.register(heatmapRoutes);
  await app.register(baselineRoutes);
}
