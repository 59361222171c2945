import type { UserRow } from "@volley/db";
import type { Role } from "@volley/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Actor, OIDC_ACTOR } from "../../access/actor.js";
import { proposedUserName, roleFromClaims, subjectTag } from "../../access/oidc-claims.js";
import { OIDC_LOGIN_TTL_MS, OidcClient, OidcError } from "../../access/oidc-client.js";
import { OIDC_CALLBACK_PATH, type ResolvedOidc } from "../../access/oidc-config.js";
import { OIDC_PASSWORD_HASH } from "../../access/passwords.js";
import { cookieValue } from "../../plugins/auth.js";
import { PUBLIC_ROUTE } from "../../plugins/route-access.js";
import { setSessionCookie } from "./cookie.js";

/** Carries a pending sign-in's id from the redirect out to the callback. */
const OIDC_COOKIE = "volley_oidc";
const ID_RE = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Sign-in through the OpenID provider: `GET /api/session/oidc` sends the browser out,
 * `GET /api/session/oidc/callback` brings it back signed in (or to the sign-in page with the reason).
 */
export async function oidcRoutes(app: FastifyInstance, options: { oidc: ResolvedOidc }): Promise<void> {
  const client = new OidcClient(options.oidc);

  app.get("/session/oidc", { config: PUBLIC_ROUTE }, async (request, reply) => {
    try {
      const { url, id } = await client.begin(redirectUri(request, options.oidc));
      // Lax, not Strict: the provider's redirect back is a cross-site navigation, which must carry it.
      reply.header(
        "set-cookie",
        `${OIDC_COOKIE}=${id}; HttpOnly; SameSite=Lax; Path=/api/session/oidc; Max-Age=${OIDC_LOGIN_TTL_MS / 1000}`,
      );
      return reply.redirect(url, 302);
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  app.get("/session/oidc/callback", { config: PUBLIC_ROUTE }, async (request, reply) => {
    reply.header("set-cookie", `${OIDC_COOKIE}=; HttpOnly; SameSite=Lax; Path=/api/session/oidc; Max-Age=0`);
    try {
      const query = new URL(request.url, "http://callback").search;
      const error = new URLSearchParams(query).get("error");
      if (error) throw new OidcError(`the identity provider refused the sign-in: ${error.slice(0, 100)}`);
      const cookie = cookieValue(request, OIDC_COOKIE);
      const claims = await client.complete(query, cookie && ID_RE.test(cookie) ? cookie : undefined);
      const role = roleFromClaims(claims, options.oidc.roleClaim, options.oidc.roles);
      const subject = String(claims.sub);
      if (!role) {
        request.log.warn({ subject }, "OIDC sign-in refused: no role in the claim");
        throw new OidcError(
          `your account has no Volley role: the "${options.oidc.roleClaim}" claim holds none of ${Object.keys(options.oidc.roles).join(", ")}`,
        );
      }
      const user = await signedInUser(app, subject, proposedUserName(claims), role);
      const actor: Actor = { name: user.name, user: user.name, role, via: "oidc" };
      await app.services.audit.record(actor, "session.sign-in", user.name, `oidc, role ${role}`);
      setSessionCookie(reply, app.sessions.create(actor));
      // A page, not a redirect: the browser arrived from the provider's site, and a redirect in
      // that chain would not send the Strict session cookie just set; this page's own navigation does.
      return reply.type("text/html").send(landingPage("/", "Signed in. Opening the dashboard…"));
    } catch (error) {
      return refuse(request, reply, error);
    }
  });
}

/** The user this subject signs in as, made on its first sign-in; its role follows the provider. */
async function signedInUser(
  app: FastifyInstance,
  subject: string,
  proposed: string,
  role: Role,
): Promise<UserRow> {
  const { db, audit } = app.services;
  const known = await db.users.getBySubject(subject);
  if (known) {
    if (known.role !== role) {
      await db.users.update(known.name, { role });
      await audit.record(
        OIDC_ACTOR,
        "user.update",
        known.name,
        `role ${known.role} → ${role} (from the provider)`,
      );
    }
    return { ...known, role };
  }
  // A name already taken (a local user, or another subject) is never shared: the new user gets
  // the name with a tag of its subject, so an identity provider cannot take over a local account.
  const name = (await db.users.get(proposed)) ? `${proposed.slice(0, 48)}-${subjectTag(subject)}` : proposed;
  const user = await db.users.create({
    name,
    role,
    passwordHash: OIDC_PASSWORD_HASH,
    oidcSubject: subject,
    createdBy: OIDC_ACTOR.name,
  });
  await audit.record(
    OIDC_ACTOR,
    "user.create",
    name,
    `role ${role} (first sign-in through the identity provider)`,
  );
  return user;
}

function redirectUri(request: FastifyRequest, oidc: ResolvedOidc): string {
  // The Host header was checked by the request guard (allowed hosts) before any handler.
  return oidc.redirectUrl ?? `${request.protocol}://${request.headers.host}${OIDC_CALLBACK_PATH}`;
}

/** Back to the sign-in page, which shows why. */
function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const message =
    error instanceof OidcError ? error.message : `the sign-in did not succeed: ${(error as Error).message}`;
  request.log.warn({ err: (error as Error).message }, "OIDC sign-in failed");
  return reply.redirect(`/?signin-error=${encodeURIComponent(message.slice(0, 300))}`, 302);
}

function landingPage(href: string, text: string): string {
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>Volley</title><p><a href="${href}">${text}</a></p>`;
}
