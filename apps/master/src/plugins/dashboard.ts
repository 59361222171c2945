import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { PUBLIC_ROUTE } from "./route-access.js";

/**
 * Serves the built dashboard. Any GET that is not an API or socket path and names no file gets
 * index.html, so deep links (/runs/abc) load the single-page app.
 */
export const dashboardPlugin = fp(
  async (app: FastifyInstance) => {
    const root = app.services.config.webRoot;
    const hasDashboard = root !== null && existsSync(join(root, "index.html"));
    if (hasDashboard) {
      // The dashboard's files hold no data: public, so the login page can load.
      await app.register(async (files) => {
        files.addHook("onRoute", (route) => {
          route.config = { ...route.config, ...PUBLIC_ROUTE };
        });
        await files.register(fastifyStatic, {
          root: root as string,
          prefix: "/",
          index: "index.html",
          wildcard: true,
          maxAge: "1h",
        });
      });
    }
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split("?")[0];
      const isPage =
        request.method === "GET" &&
        !path.startsWith("/api/") &&
        !path.startsWith("/ws/") &&
        path !== "/metrics";
      if (isPage && hasDashboard) return reply.header("cache-control", "no-cache").sendFile("index.html");
      if (isPage) {
        return reply
          .code(200)
          .type("text/html")
          .send(
            "<!doctype html><title>Volley</title><p>The dashboard is not built yet: run <code>pnpm build</code>.</p>",
          );
      }
      return reply.code(404).send({ error: `no route ${request.method} ${path}`, code: "VOL_ERR_NOT_FOUND" });
    });
  },
  { name: "volley-dashboard", dependencies: ["volley-services"] },
);
