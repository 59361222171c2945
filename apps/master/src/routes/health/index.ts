import { withTimeout } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { PUBLIC_ROUTE } from "../../plugins/route-access.js";

/** GET /api/health: whether Redis and the database answer (503 when one does not). */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get("/health", { config: PUBLIC_ROUTE }, async (_request, reply) => {
    const { redis, db, config } = app.services;
    const [redisUp, databaseUp] = await Promise.all([
      withTimeout(redis.ping(), 2000).then(
        () => true,
        () => false,
      ),
      withTimeout(db.ping(), 2000).then(
        () => true,
        () => false,
      ),
    ]);
    const ok = redisUp && databaseUp;
    return reply.code(ok ? 200 : 503).send({
      ok,
      redis: redisUp ? "up" : "down",
      database: databaseUp ? "up" : "down",
      databaseProvider: db.provider,
      ...(ok ? {} : { code: "VOL_ERR_UNAVAILABLE" }),
      version: config.version,
    });
  });
}
