import { timingSafeEqual } from "node:crypto";
import {
  NONCE_RE,
  type Role,
  roleAllows,
  TOKEN_ID_RE,
  WORKER_NONCE_HEADER,
  WORKER_TOKEN_ID_HEADER,
} from "@volley/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { type Actor, LOCAL_ACTOR, MASTER_TOKEN_ACTOR } from "../access/actor.js";
import { DashboardSessions } from "./dashboard-sessions.js";
import { hostChecker } from "./host-check.js";
import { LoginThrottle } from "./login-throttle.js";

/** The dashboard's login cookie: an opaque session id (never the token). */
export const SESSION_COOKIE = "volley_session";

declare module "fastify" {
  interface FastifyInstance {
    /** Dashboard logins (opaque ids behind the session cookie). */
    sessions: DashboardSessions;
    /** Failed logins per address. */
    loginThrottle: LoginThrottle;
    /** Who sent `request`, by its credentials (the local admin on a master that asks none); undefined: nobody known. */
    identify(request: FastifyRequest): Promise<Actor | undefined>;
  }
  interface FastifyRequest {
    /** Who made the request (set by the guard on every route that is not public). */
    actor: Actor;
    /** A worker joining with a join token: its id, and its hash, the key the link is proved with. */
    joinToken: { id: string; key: string } | null;
  }
}

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

/** The session id of the dashboard's cookie, if one was sent. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  return cookieValue(request, SESSION_COOKIE);
}

/** One cookie of the request, decoded; undefined when absent or malformed. */
export function cookieValue(request: FastifyRequest, cookie: string): string | undefined {
  const cookies = request.headers.cookie ?? "";
  if (cookies.length > 8192) return undefined;
  for (const part of cookies.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === cookie) {
      try {
        return decodeURIComponent(value.join("="));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface RequestGuardOptions {
  /** The address this listener binds. */
  listenHost: string;
  allowedHosts: readonly string[];
  /** The API needs credentials (a token is set); without, every caller is the local admin. */
  tokenRequired: boolean;
}

/**
 * Every request, before its handler: the `Host` must be one this listener answers (DNS
 * rebinding), a state-changing request or a WebSocket from a browser must come from the master's
 * own origin (CSRF), and every route that is not declared public needs a caller whose role
 * allows it. Access is read from the route the router matched, never from the raw URL.
 */
export const requestGuardPlugin = fp(
  async (app: FastifyInstance, options: RequestGuardOptions) => {
    const hostAllowed = hostChecker(options.listenHost, options.allowedHosts);
    const token = app.services.config.token;
    const sessions = new DashboardSessions();
    app.decorate("sessions", sessions);
    app.decorate("loginThrottle", new LoginThrottle());
    // Set by the guard before any handler that reads it (public routes never do).
    app.decorateRequest("actor", null as unknown as Actor);
    app.decorateRequest("joinToken", null);
    const identify = async (request: FastifyRequest): Promise<Actor | undefined> => {
      const bearer = bearerToken(request);
      if (bearer === undefined) return sessions.actor(sessionCookie(request));
      if (token && tokensEqual(bearer, token)) return MASTER_TOKEN_ACTOR;
      const row = await app.services.tokens.check("user", bearer);
      const user = row?.userName ? await app.services.db.users.get(row.userName) : null;
      // The user's role now, not when the token was made: a demoted user's tokens are demoted too.
      return user
        ? { name: user.name, user: user.name, role: user.role as Role, via: "personal-token" }
        : undefined;
    };
    app.decorate(
      "identify",
      async (request: FastifyRequest) =>
        (await identify(request)) ?? (options.tokenRequired ? undefined : LOCAL_ACTOR),
    );
    app.addHook("onSend", async (_request, reply) => {
      // Never framed (a framed dashboard could be clicked into spawning workers), never sniffed.
      reply.header("x-frame-options", "DENY");
      reply.header("content-security-policy", "frame-ancestors 'none'");
      reply.header("x-content-type-options", "nosniff");
      reply.header("referrer-policy", "no-referrer");
    });
    app.addHook("onRequest", async (request, reply) => {
      const host = request.headers.host ?? "";
      if (!hostAllowed(host)) {
        return deny(reply, 403, "VOL_ERR_FORBIDDEN", `this master does not answer to the host "${host}"`);
      }
      const upgrade = request.headers.upgrade?.toLowerCase() === "websocket";
      if ((upgrade || !SAFE_METHODS.has(request.method)) && !sameOrigin(request, host)) {
        return deny(reply, 403, "VOL_ERR_FORBIDDEN", "cross-origin requests are refused");
      }
      const access = request.routeOptions.config?.access ?? "admin";
      if (access === "public") return;
      if (access === "worker-token") {
        if (!token) return;
        // A worker proves it knows the token inside the socket (a nonce now, an HMAC in hello);
        // a Bearer token is still taken from tools that send one.
        const nonce = NONCE_RE.test(String(request.headers[WORKER_NONCE_HEADER] ?? ""));
        const tokenId = request.headers[WORKER_TOKEN_ID_HEADER];
        if (tokenId !== undefined) {
          // A join token: it must exist, live, and be proved inside the socket like the token.
          const row =
            nonce && typeof tokenId === "string" && TOKEN_ID_RE.test(tokenId)
              ? await app.services.tokens.joinToken(tokenId)
              : undefined;
          if (row) {
            request.joinToken = { id: row.id, key: row.hash };
            return;
          }
          request.log.warn(
            { ip: request.ip, tokenId },
            "worker refused: unknown, revoked or expired join token",
          );
          return deny(reply, 401, "VOL_ERR_UNAUTHORIZED", "unknown, revoked or expired worker join token");
        }
        if (nonce) return;
        if (tokensEqual(bearerToken(request), token)) return;
        request.log.warn({ ip: request.ip }, "worker refused: wrong or missing token");
        return deny(reply, 401, "VOL_ERR_UNAUTHORIZED", "wrong or missing worker token");
      }
      const actor = await app.identify(request);
      if (actor === undefined) {
        const bearer = bearerToken(request);
        request.log.warn(
          {
            ip: request.ip,
            route: request.routeOptions.url,
            credential: bearer !== undefined ? "bearer" : "cookie",
          },
          "request refused: wrong or missing credentials",
        );
        return deny(
          reply,
          401,
          "VOL_ERR_UNAUTHORIZED",
          "this master requires credentials: sign in, or send Authorization: Bearer <token>",
        );
      }
      if (!roleAllows(actor.role, access)) {
        return deny(
          reply,
          403,
          "VOL_ERR_FORBIDDEN",
          `this needs the role ${access}; ${actor.name} is a ${actor.role}`,
        );
      }
      request.actor = actor;
    });
  },
  { name: "volley-request-guard", dependencies: ["volley-services"] },
);

/** A browser names the page's origin (or says cross-site); tools send neither and pass. */
function sameOrigin(request: FastifyRequest, host: string): boolean {
  if (request.headers["sec-fetch-site"] === "cross-site") return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function deny(reply: FastifyReply, status: number, code: string, error: string) {
  return reply.code(status).send({ error, code });
}
