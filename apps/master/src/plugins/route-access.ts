/**
 * Who may call a route, declared where the route is declared (`config: PUBLIC_ROUTE`). The
 * guard reads it from the route the router matched, so no spelling of a URL changes the answer.
 * A route that declares nothing needs the token (deny by default).
 */
export type RouteAccess = "public" | "token" | "worker-token";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** No token needed: the dashboard's files, health, login and the dashboard's bootstrap config. */
export const PUBLIC_ROUTE = { access: "public" } as const;
/** The worker socket checks the token itself, always, whatever the API's rules. */
export const WORKER_ROUTE = { access: "worker-token" } as const;
