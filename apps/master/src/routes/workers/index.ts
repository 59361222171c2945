import { localWorkersBodySchema, parseWith, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { ADMIN_ROUTE, VIEWER_ROUTE } from "../../plugins/route-access.js";
import { LocalWorkerLimitError } from "../../workers/local-workers.js";

/** Worker nodes: list, start local ones, retire one. */
export async function workerRoutes(app: FastifyInstance): Promise<void> {
  app.get("/", { config: VIEWER_ROUTE }, async () => app.services.registry.list());

  app.post("/local", { config: ADMIN_ROUTE }, async (request, reply) => {
    const body = parseWith(localWorkersBodySchema, request.body ?? {}, "local workers request");
    try {
      const names = app.services.localWorkers.start(body.count, body.threads);
      await app.services.audit.record(
        request.actor,
        "worker.spawn",
        names.join(", "),
        `${body.threads} threads each`,
      );
      return reply.code(202).send({ started: names, limit: app.services.localWorkers.max });
    } catch (error) {
      if (error instanceof LocalWorkerLimitError)
        throw new VolleyError("VOL_ERR_LOCAL_WORKER_LIMIT", error.message);
      throw error;
    }
  });

  app.delete<{ Params: { id: string } }>("/:id", { config: ADMIN_ROUTE }, async (request, reply) => {
    const { registry, scheduler } = app.services;
    const entry = registry.get(request.params.id);
    if (!entry) throw new VolleyError("VOL_ERR_NOT_FOUND", `no worker ${request.params.id}`);
    const runId = entry.info.runId;
    if (runId && scheduler.isActive(runId) && entry.info.state !== "lost") {
      throw new VolleyError(
        "VOL_ERR_WORKER_BUSY",
        `worker ${entry.info.name} is in run ${runId}; stop the run first`,
      );
    }
    registry.send(entry.info.id, { type: "retire", reason: "retired from the dashboard" });
    registry.remove(entry.info.id);
    await app.services.audit.record(request.actor, "worker.retire", entry.info.name, entry.info.id);
    return reply.code(204).send();
  });
}
