import type { UserRow } from "@volley/db";
import { createUserSchema, parseWith, updateUserSchema, VolleyError } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { generatePassword, hashPassword } from "../../access/passwords.js";
import { ADMIN_ROUTE } from "../../plugins/route-access.js";

/** Users (admin): create with a one-time password, list, change role or reset the password, delete. */
export async function userRoutes(app: FastifyInstance): Promise<void> {
  const { db, audit } = app.services;

  app.get("/", { config: ADMIN_ROUTE }, async () => (await db.users.list()).map(userView));

  app.post("/", { config: ADMIN_ROUTE }, async (request, reply) => {
    const body = parseWith(createUserSchema, request.body ?? {}, "request body");
    if (await db.users.get(body.name))
      throw new VolleyError("VOL_ERR_EXISTS", `a user "${body.name}" already exists`);
    const password = generatePassword();
    await db.users.create({
      name: body.name,
      role: body.role,
      passwordHash: await hashPassword(password),
      createdBy: request.actor.name,
    });
    await audit.record(request.actor, "user.create", body.name, `role ${body.role}`);
    // The password is in this answer only: the user signs in with it and sets their own.
    return reply.code(201).send({ name: body.name, role: body.role, password });
  });

  app.patch<{ Params: { name: string } }>("/:name", { config: ADMIN_ROUTE }, async (request) => {
    const body = parseWith(updateUserSchema, request.body ?? {}, "request body");
    const user = await existing(app, request.params.name);
    if (body.resetPassword && user.oidcSubject !== null) {
      throw new VolleyError(
        "VOL_ERR_VALIDATION",
        `resetPassword: ${user.name} signs in through the identity provider and has no password here`,
      );
    }
    const password = body.resetPassword ? generatePassword() : undefined;
    await db.users.update(user.name, {
      ...(body.role ? { role: body.role } : {}),
      ...(password ? { passwordHash: await hashPassword(password) } : {}),
    });
    // Sessions carry the role they signed in with: end them so the new role counts at once.
    app.sessions.revokeUser(user.name);
    const changes = [body.role && `role ${user.role} → ${body.role}`, password && "password reset"].filter(
      Boolean,
    );
    await audit.record(request.actor, "user.update", user.name, changes.join(", "));
    return { ...userView({ ...user, role: body.role ?? user.role }), ...(password ? { password } : {}) };
  });

  app.delete<{ Params: { name: string } }>("/:name", { config: ADMIN_ROUTE }, async (request, reply) => {
    const user = await existing(app, request.params.name);
    await db.users.delete(user.name);
    app.sessions.revokeUser(user.name);
    await audit.record(request.actor, "user.delete", user.name);
    return reply.code(204).send();
  });
}

async function existing(app: FastifyInstance, name: string): Promise<UserRow> {
  const user = name.length <= 64 ? await app.services.db.users.get(name) : null;
  if (!user) throw new VolleyError("VOL_ERR_NOT_FOUND", `no user "${name}"`);
  return user;
}

function userView(user: Pick<UserRow, "name" | "role" | "createdAt" | "createdBy" | "oidcSubject">) {
  return {
    name: user.name,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
    createdBy: user.createdBy,
    // How they sign in: their password here, or the identity provider (which also sets the role).
    signIn: user.oidcSubject === null ? "password" : "oidc",
  };
}
