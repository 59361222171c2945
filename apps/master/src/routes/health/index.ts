import type { FastifyInstance } from "fastify";

/** GET /api/health: whether Redis and the database answer (503 when one does not). */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get("/health", async (_request, reply) => {
    const { redis, db, config } = app.services;
    const [redisUp, databaseUp] = await Promise.all([
      withTimeout(redis.ping()).then(
        () => true,
        () => false,
      ),
      withTimeout(db.ping()).then(
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
      version: config.version,
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timeout")), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
