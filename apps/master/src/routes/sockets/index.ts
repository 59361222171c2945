import { NONCE_RE, WORKER_NONCE_HEADER } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { VIEWER_ROUTE, WORKER_ROUTE } from "../../plugins/route-access.js";
import { toListItem, toTimeseries } from "../../runs/run-views.js";
import { handleWorkerSocket } from "../../ws/worker-socket.js";

/**
 * WS /ws/worker: worker nodes. With a token set, an upgrade with neither the token nor a nonce
 * gets 401, as does one naming a join token that is unknown, revoked or expired; a nonce socket
 * proves the token (or the join token) inside (see handleWorkerSocket).
 */
export async function workerSocketRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;
  app.get("/ws/worker", { websocket: true, config: WORKER_ROUTE }, (socket, request) => {
    const { registry, scheduler, log } = app.services;
    const nonce = request.headers[WORKER_NONCE_HEADER];
    handleWorkerSocket(
      socket,
      request.ip,
      {
        registry,
        scheduler,
        log,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        redisUrlForWorkers: config.redisUrlForWorkers,
        queuePrefix: config.queuePrefix,
        // The key both ends prove: the master's token, or the join token the guard found.
        token: request.joinToken?.key ?? config.token,
        joinTokenId: request.joinToken?.id ?? null,
      },
      // The guard let a nonce through only in its form; a Bearer socket has none.
      typeof nonce === "string" && NONCE_RE.test(nonce) ? nonce : null,
    );
  });
}

/** WS /ws/live: the dashboard's feed; the first message is the whole current state. */
export async function liveSocketRoutes(app: FastifyInstance): Promise<void> {
  app.get("/ws/live", { websocket: true, config: VIEWER_ROUTE }, async (socket) => {
    const { registry, scheduler, live, db } = app.services;
    const [runs, queued] = await Promise.all([
      Promise.all(
        scheduler.activeRunIds.map(async (runId) => {
          const [run, seconds] = await Promise.all([scheduler.detail(runId), db.seconds.list(runId)]);
          return run ? [{ run, points: toTimeseries(seconds).overall }] : [];
        }),
      ),
      db.runs.list({ status: "queued", limit: 200 }),
    ]);
    live.add(socket, {
      type: "state",
      workers: registry.list(),
      runs: runs.flat(),
      queued: queued.reverse().map(toListItem),
      serverTime: Date.now(),
    });
  });
}
