import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

export const TOKEN_COOKIE = "volley_token";

/** Compares two secrets in constant time (no early exit on the first different byte). */
export function tokensEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length) {
    // Spend the same time as a real comparison so the answer's timing does not reveal the length.
    timingSafeEqual(b, b);
    return false;
  }
  return timingSafeEqual(a, b);
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined;
}

export function cookieToken(request: FastifyRequest): string | undefined {
  const cookies = request.headers.cookie ?? "";
  for (const part of cookies.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

const PUBLIC_PATHS = new Set(["/api/health", "/api/login", "/api/config"]);

/**
 * When the API listens beyond loopback, every API call, the live feed and /metrics need the
 * token, as a bearer header or the login cookie. The dashboard's files stay public (they hold
 * no data) so the login page can load.
 */
export const apiAuthPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app.services;
    app.addHook("onRequest", async (request, reply) => {
      if (!config.apiTokenRequired || !config.token) return;
      const path = request.url.split("?")[0];
      const guarded =
        (path.startsWith("/api/") && !PUBLIC_PATHS.has(path)) || path === "/ws/live" || path === "/metrics";
      if (!guarded) return;
      if (tokensEqual(bearerToken(request) ?? cookieToken(request), config.token)) return;
      return reply.code(401).send({
        error: "this master requires its token: log in, or send Authorization: Bearer <token>",
        code: "VOL_ERR_UNAUTHORIZED",
      });
    });
  },
  { name: "volley-api-auth", dependencies: ["volley-services"] },
);
