import type { FastifyReply } from "fastify";
import { SESSION_COOKIE } from "../../plugins/auth.js";
import { SESSION_TTL_MS } from "../../plugins/dashboard-sessions.js";

/**
 * The sign-in cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it, on top of the guard's origin check for every write), the whole site.
 */
export function setSessionCookie(reply: FastifyReply, session: string): FastifyReply {
  return reply.header(
    "set-cookie",
    `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`,
  );
}

export function clearSessionCookie(reply: FastifyReply): FastifyReply {
  return reply.header("set-cookie", `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
}
