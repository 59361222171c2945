import type { FastifyInstance } from "fastify";
import { bearerToken, tokensEqual } from "../../plugins/auth.js";
import { toTimeseries } from "../../runs/run-views.js";
import { handleWorkerSocket } from "../../ws/worker-socket.js";

/** WS /ws/worker: worker nodes. With a token set, a wrong or missing one gets 401 before the upgrade. */
export async function workerSocketRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;
  app.get(
    "/ws/worker",
    {
      websocket: true,
      preValidation: async (request, reply) => {
        if (config.token && !tokensEqual(bearerToken(request), config.token)) {
          request.log.warn({ ip: request.ip }, "worker refused: wrong or missing token");
          return reply
            .code(401)
            .send({ error: "wrong or missing worker token", code: "VOL_ERR_UNAUTHORIZED" });
        }
      },
    },
    (socket, request) => {
      const { registry, scheduler, log } = app.services;
      handleWorkerSocket(socket, request.ip, {
        registry,
        scheduler,
        log,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        redisUrlForWorkers: config.redisUrlForWorkers,
        queuePrefix: config.queuePrefix,
      });
    },
  );
}

/** WS /ws/live: the dashboard's feed; the first message is the whole current state. */
export async function liveSocketRoutes(app: FastifyInstance): Promise<void> {
  app.get("/ws/live", { websocket: true }, async (socket) => {
    const { registry, scheduler, live, db } = app.services;
    const runId = scheduler.activeRunId;
    const [run, seconds] = runId
      ? await Promise.all([scheduler.detail(runId), db.seconds.list(runId)])
      : [null, []];
    live.add(socket, {
      type: "state",
      workers: registry.list(),
      run,
      points: toTimeseries(seconds).overall,
      serverTime: Date.now(),
    });
  });
}
