import fastifyWebsocket from "@fastify/websocket";
import { MAX_WORKER_MESSAGE_BYTES } from "@volley/protocol";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  LogController,
  type RouteOptions,
} from "fastify";
import { requestGuardPlugin } from "./plugins/auth.js";
import { dashboardPlugin } from "./plugins/dashboard.js";
import { errorHandlerPlugin } from "./plugins/error-handler.js";
import { PUBLIC_ROUTE } from "./plugins/route-access.js";
import { servicesPlugin } from "./plugins/services.js";
import { auditRoutes } from "./routes/audit/index.js";
import { compareRoutes } from "./routes/compare/index.js";
import { healthRoutes } from "./routes/health/index.js";
import { metricsRoutes } from "./routes/metrics/index.js";
import { openApiRoutes } from "./routes/openapi/index.js";
import { runRoutes } from "./routes/runs/index.js";
import { scheduleRoutes } from "./routes/schedules/index.js";
import { sessionRoutes } from "./routes/session/index.js";
import { liveSocketRoutes, workerSocketRoutes } from "./routes/sockets/index.js";
import { tokenRoutes } from "./routes/tokens/index.js";
import { trendRoutes } from "./routes/trends/index.js";
import { userRoutes } from "./routes/users/index.js";
import { workerRoutes } from "./routes/workers/index.js";
import type { Services } from "./services.js";

/** The master's HTTP side: API, sockets, dashboard. `workersOnly` builds the separate worker listener. */
export async function buildApp(services: Services, workersOnly = false): Promise<FastifyInstance> {
  const { tls } = services.config;
  // Request timeouts are checked this often (Node's default, 30 s, would let a silent socket live
  // that much past the timeout).
  const serverOptions = {
    connectionsCheckingInterval: 1000,
    headersTimeout: Math.min(60_000, services.config.requestTimeoutMs),
  };
  const app = Fastify({
    ...(tls ? { https: { cert: tls.cert, key: tls.key, ...serverOptions } } : { http: serverOptions }),
    loggerInstance: services.log.child({
      component: workersOnly ? "worker-listener" : "http",
    }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: services.config.bodyLimit,
    // Slow or silent connections are closed: 15,000 held idle ones once sat on the master for good.
    requestTimeout: services.config.requestTimeoutMs,
    keepAliveTimeout: 10_000,
    trustProxy: false,
    // Errors raised before routing (a malformed percent-encoding, say) keep the API's error shape.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      reply.code(400).send({
        error: error.message,
        code: "VOL_ERR_VALIDATION",
        details: [{ path: "(url)", message: error.message }],
      });
    },
  });
  // Every route with the access it declares, read once all plugins have had their say (the
  // dashboard's files are made public by a hook of their own, after this one ran).
  const routes: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    routes.push(route);
  });
  app.decorate("routeTable", () =>
    routes.flatMap((route) =>
      [route.method].flat().map((method) => ({ method, url: route.url, access: route.config?.access })),
    ),
  );
  await app.register(servicesPlugin, services);
  await app.register(errorHandlerPlugin);
  await app.register(fastifyWebsocket, {
    options: { maxPayload: MAX_WORKER_MESSAGE_BYTES },
    // A client that breaks the protocol (an oversized frame, say) is its own problem, not the master's.
    errorHandler: (error, socket, request) => {
      request.log.warn({ err: error.message, ip: request.ip }, "websocket closed on a client error");
      socket.terminate();
    },
  });
  const { config } = services;
  await app.register(requestGuardPlugin, {
    listenHost: workersOnly ? (config.workerListenHost ?? config.listenHost) : config.listenHost,
    allowedHosts: config.allowedHosts,
    tokenRequired: config.apiTokenRequired,
  });
  if (workersOnly) {
    await app.register(workerSocketRoutes);
    app.get("/api/health", { config: PUBLIC_ROUTE }, async () => ({ ok: true }));
    return app;
  }
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(sessionRoutes, { prefix: "/api" });
  await app.register(openApiRoutes, { prefix: "/api" });
  await app.register(workerRoutes, { prefix: "/api/workers" });
  await app.register(runRoutes, { prefix: "/api/runs" });
  await app.register(compareRoutes, { prefix: "/api/compare" });
  await app.register(trendRoutes, { prefix: "/api/trends" });
  await app.register(userRoutes, { prefix: "/api/users" });
  await app.register(tokenRoutes, { prefix: "/api" });
  await app.register(auditRoutes, { prefix: "/api/audit" });
  await app.register(scheduleRoutes, { prefix: "/api/schedules" });
  await app.register(metricsRoutes);
  await app.register(workerSocketRoutes);
  await app.register(liveSocketRoutes);
  await app.register(dashboardPlugin);
  return app;
}
