import type { Role } from "@volley/protocol";

/**
 * Who may call a route, declared where the route is declared (`config: TESTER_ROUTE`). The guard
 * reads it from the route the router matched, so no spelling of a URL changes the answer. A
 * route that declares nothing needs an admin (deny by default); a test walks every route the
 * router knows and checks each role against its declaration.
 */
export type RouteAccess = "public" | "worker-token" | Role;

declare module "fastify" {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyInstance {
    /** Every route this app knows and the access it declares (undefined: none, so admin). */
    routeTable(): RouteEntry[];
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  access: RouteAccess | undefined;
}

/** No credentials needed: the dashboard's files, health, sign-in and the dashboard's bootstrap config. */
export const PUBLIC_ROUTE = { access: "public" } as const;
/** The worker socket checks its join credential itself, always, whatever the API's rules. */
export const WORKER_ROUTE = { access: "worker-token" } as const;
/** Reads: runs, reports, workers, trends, the live feed. */
export const VIEWER_ROUTE = { access: "viewer" } as const;
/** Starts, stops and changes runs. */
export const TESTER_ROUTE = { access: "tester" } as const;
/** Workers, users, worker tokens, the audit log. */
export const ADMIN_ROUTE = { access: "admin" } as const;
