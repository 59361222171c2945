import { VOLLEY_VERSION, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { isLoopback } from "../../options.js";
import { TOKEN_COOKIE, tokensEqual } from "../../plugins/auth.js";
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
    const parsed = loginSchema.safeParse(request.body ?? {});
    const { token } = app.services.config;
    if (!parsed.success || !token || !tokensEqual(parsed.data.token, token)) {
      throw new VolleyError("VOL_ERR_UNAUTHORIZED", "wrong token");
    }
    return reply
      .header(
        "set-cookie",
        `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000`,
      )
      .send({ ok: true });
  });
}
