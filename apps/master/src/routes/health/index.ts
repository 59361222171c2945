import { withTimeout } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { PUBLIC_ROUTE } from "../../plugins/route-access.js";

/**
 * GET /api/health: readiness. Redis and the database must answer, and the database must take
 * writes: `degraded` (503) while it is read-only or the stats checkpoints fail, with the reason.
 * GET /api/health/live: liveness, the process answers (a restart would not fix Redis or the database).
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get("/health", { config: PUBLIC_ROUTE }, async (_request, reply) => {
    const { redis, db, pipeline, config } = app.services;
    const answers = <T>(probe: Promise<T>) =>
      withTimeout(probe, 2000).then(
        (value) => ({ up: true as const, value }),
        () => ({ up: false as const }),
      );
    const [redisProbe, databaseProbe, readOnlyProbe] = await Promise.all([
      answers(redis.ping()),
      answers(db.ping()),
      answers(db.readOnly()),
    ]);
    const problems: string[] = [];
    if (!redisProbe.up) problems.push("Redis does not answer");
    if (!databaseProbe.up) problems.push("the database does not answer");
    else if (readOnlyProbe.up && readOnlyProbe.value) problems.push("the database is read-only");
    const failure = pipeline.checkpointFailure;
    if (failure) {
      const seconds = Math.round((Date.now() - failure.since) / 1000);
      problems.push(`statistics cannot be saved for ${seconds} s: ${failure.error}`);
    }
    const database = !databaseProbe.up
      ? "down"
      : problems.length > (redisProbe.up ? 0 : 1)
        ? "degraded"
        : "up";
    const ok = redisProbe.up && database === "up";
    return reply.code(ok ? 200 : 503).send({
      ok,
      redis: redisProbe.up ? "up" : "down",
      database,
      databaseProvider: db.provider,
      ...(ok ? {} : { code: "VOL_ERR_UNAVAILABLE", problems }),
      version: config.version,
    });
  });

  app.get("/health/live", { config: PUBLIC_ROUTE }, async () => ({ ok: true }));
}
