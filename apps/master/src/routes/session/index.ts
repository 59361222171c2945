import { VOLLEY_VERSION, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { MASTER_TOKEN_ACTOR } from "../../access/actor.js";
import { isLoopback } from "../../options.js";
import { sessionCookie, tokensEqual } from "../../plugins/auth.js";
import { PUBLIC_ROUTE } from "../../plugins/route-access.js";
import { clearSessionCookie, setSessionCookie } from "./cookie.js";
import { oidcRoutes } from "./oidc.js";
import { signInRoutes } from "./sign-in.js";

const loginSchema = z.strictObject({ token: z.string().min(1).max(500) });

/** The dashboard's session: what it needs to know at load, sign-in with the token or a password, sign-out. */
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
      // The sign-in page's "Sign in with …" button, when an identity provider is configured.
      oidcProvider: config.oidc ? new URL(config.oidc.issuer).host : null,
    };
  });

  // Sign-in with the master's token: an admin session, as in earlier rounds.
  app.post("/login", { config: PUBLIC_ROUTE }, async (request, reply) => {
    app.loginThrottle.check(request.ip, request.log);
    const parsed = loginSchema.safeParse(request.body ?? {});
    const { token } = app.services.config;
    if (!parsed.success || !token || !tokensEqual(parsed.data.token, token)) {
      app.loginThrottle.failed(request.ip);
      request.log.warn({ ip: request.ip }, "login failed: wrong token");
      throw new VolleyError("VOL_ERR_UNAUTHORIZED", "wrong token");
    }
    return setSessionCookie(reply, app.sessions.create(MASTER_TOKEN_ACTOR)).send({ ok: true });
  });

  // Public: signing out needs no valid session (an expired one is cleared all the same).
  app.post("/logout", { config: PUBLIC_ROUTE }, async (request, reply) => {
    app.sessions.revoke(sessionCookie(request));
    return clearSessionCookie(reply).send({ ok: true });
  });

  await app.register(signInRoutes);
  const { oidc } = app.services.config;
  if (oidc) await app.register(oidcRoutes, { oidc });
}
