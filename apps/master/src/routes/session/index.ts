import { VOLLEY_VERSION, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { isLoopback } from "../../options.js";
import { SESSION_COOKIE, sessionCookie, tokensEqual } from "../../plugins/auth.js";
import { SESSION_TTL_MS } from "../../plugins/dashboard-sessions.js";
import { PUBLIC_ROUTE } from "../../plugins/route-access.js";

const loginSchema = z.strictObject({ token: z.string().min(1).max(500) });

/** The dashboard's session: what it needs to know at load, and the token login. */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  app.get("/config", { config: PUBLIC_ROUTE }, async () => {
    const { config } = app.services;
    return {
      version: VOLLEY_VERSION,
      authRequired: config.apiTokenRequired,
      tokenRequiredForWorkers: config.token !== undefined,
      workerUrl: config.workerUrl,
      // A loopback master only takes workers on its own machine: the page says so instead of
      // offering a command other machines cannot use.
      workersLocalOnly: isLoopback(config.workerListenHost ?? config.listenHost),
      workerCommand: `pnpm volley worker --master ${config.workerUrl}${config.token ? " --token <token>" : ""}`,
      maxLocalWorkers: app.services.localWorkers.max,
    };
  });

  app.post("/login", { config: PUBLIC_ROUTE }, async (request, reply) => {
    if (!app.loginThrottle.allowed(request.ip)) {
      request.log.warn({ ip: request.ip }, "login refused: too many failed logins");
      throw new VolleyError(
        "VOL_ERR_RATE_LIMITED",
        "too many failed logins from this address: wait a minute",
      );
    }
    const parsed = loginSchema.safeParse(request.body ?? {});
    const { token } = app.services.config;
    if (!parsed.success || !token || !tokensEqual(parsed.data.token, token)) {
      app.loginThrottle.failed(request.ip);
      request.log.warn({ ip: request.ip }, "login failed: wrong token");
      throw new VolleyError("VOL_ERR_UNAUTHORIZED", "wrong token");
    }
    const session = app.sessions.create();
    return reply
      .header(
        "set-cookie",
        `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`,
      )
      .send({ ok: true });
  });

  // Public: signing out needs no valid session (an expired one is cleared all the same).
  app.post("/logout", { config: PUBLIC_ROUTE }, async (request, reply) => {
    app.sessions.revoke(sessionCookie(request));
    return reply
      .header("set-cookie", `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`)
      .send({ ok: true });
  });
}
