import {
  changePasswordSchema,
  parseWith,
  type Role,
  type SessionInfo,
  signInSchema,
  VolleyError,
} from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import type { Actor } from "../../access/actor.js";
import { decoyHash, hashPassword, verifyPassword } from "../../access/passwords.js";
import { sessionCookie } from "../../plugins/auth.js";
import { PUBLIC_ROUTE, VIEWER_ROUTE } from "../../plugins/route-access.js";
import { clearSessionCookie, setSessionCookie } from "./cookie.js";

/** Users signing in with their password, asking who they are, signing out, changing their password. */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  // Public, answering null for nobody: the dashboard asks at load whether to show the sign-in page.
  app.get("/session", { config: PUBLIC_ROUTE }, async (request): Promise<SessionInfo | null> => {
    const actor = await app.identify(request);
    return actor ? { user: actor.name, role: actor.role, via: actor.via } : null;
  });

  app.post("/session", { config: PUBLIC_ROUTE }, async (request, reply) => {
    const body = parseWith(signInSchema, request.body ?? {}, "request body");
    app.loginThrottle.check(request.ip, request.log);
    app.loginThrottle.check(`user:${body.user}`, request.log);
    const user = await app.services.db.users.get(body.user);
    // A missing user costs the same scrypt as a wrong password: the timing tells no names.
    // So does a user of the identity provider, who has no password here.
    const stored = user && user.oidcSubject === null ? user.passwordHash : await decoyHash();
    const matches = await verifyPassword(body.password, stored);
    if (!user || !matches || user.oidcSubject !== null) {
      app.loginThrottle.failed(request.ip);
      app.loginThrottle.failed(`user:${body.user}`);
      request.log.warn({ ip: request.ip, user: body.user }, "sign-in failed: wrong user or password");
      throw new VolleyError("VOL_ERR_UNAUTHORIZED", "wrong user or password");
    }
    const actor: Actor = { name: user.name, user: user.name, role: user.role as Role, via: "session" };
    await app.services.audit.record(actor, "session.sign-in", user.name);
    const info: SessionInfo = { user: user.name, role: actor.role, via: "session" };
    return setSessionCookie(reply, app.sessions.create(actor)).send(info);
  });

  app.delete("/session", { config: PUBLIC_ROUTE }, async (request, reply) => {
    app.sessions.revoke(sessionCookie(request));
    return clearSessionCookie(reply).code(204).send();
  });

  app.post("/session/password", { config: VIEWER_ROUTE }, async (request, reply) => {
    const body = parseWith(changePasswordSchema, request.body ?? {}, "request body");
    const name = request.actor.user;
    if (name === undefined) {
      throw new VolleyError(
        "VOL_ERR_VALIDATION",
        `${request.actor.name} is not a user: it has no password to change`,
      );
    }
    app.loginThrottle.check(`user:${name}`, request.log);
    const user = await app.services.db.users.get(name);
    if (user?.oidcSubject != null) {
      throw new VolleyError(
        "VOL_ERR_VALIDATION",
        `${name} signs in through the identity provider: it has no password here`,
      );
    }
    if (!user || !(await verifyPassword(body.current, user.passwordHash))) {
      app.loginThrottle.failed(`user:${name}`);
      throw new VolleyError("VOL_ERR_UNAUTHORIZED", "the current password is wrong");
    }
    await app.services.db.users.update(name, { passwordHash: await hashPassword(body.next) });
    await app.services.audit.record(request.actor, "user.password", name);
    // Every other sign-in of this user ends; this browser signs in again with the new password.
    app.sessions.revokeUser(name);
    return clearSessionCookie(reply).code(204).send();
  });
}
