import { type CreateToken, createTokenSchema, parseWith, VolleyError } from "@volley/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TokenKind } from "../../access/token-store.js";
import { tokenView } from "../../access/token-store.js";
import { ADMIN_ROUTE, VIEWER_ROUTE } from "../../plugins/route-access.js";

/** Each kind's name in the audit log's actions (`token.create`, `worker-token.revoke`). */
const AUDITED_AS: Record<TokenKind, string> = { user: "token", worker: "worker-token" };

/**
 * Personal API tokens (`/api/tokens`): any user makes them for themself and revokes their own; an
 * admin sees and revokes all. Worker join tokens (`/api/worker-tokens`, admins): what a worker
 * joins with instead of the master's token; revoking one disconnects its workers. Secrets are
 * answered once and stored hashed.
 */
export async function tokenRoutes(app: FastifyInstance): Promise<void> {
  const { db, tokens, audit } = app.services;

  app.post("/tokens", { config: VIEWER_ROUTE }, async (request, reply) => {
    const body = parseWith(createTokenSchema, request.body ?? {}, "request body");
    const user = request.actor.user;
    if (user === undefined) {
      throw new VolleyError(
        "VOL_ERR_VALIDATION",
        `${request.actor.name} is not a user: sign in as a user to make a personal token (the master's token already is one)`,
      );
    }
    return make(request, reply, "user", user, body);
  });

  app.get("/tokens", { config: VIEWER_ROUTE }, async (request) => {
    const mine = request.actor.role === "admin" ? undefined : (request.actor.user ?? "");
    return (await db.tokens.list("user", mine)).map(tokenView);
  });

  app.delete<{ Params: { id: string } }>("/tokens/:id", { config: VIEWER_ROUTE }, async (request, reply) => {
    await revoke(request, "user", request.params.id);
    return reply.code(204).send();
  });

  app.post("/worker-tokens", { config: ADMIN_ROUTE }, (request, reply) =>
    make(request, reply, "worker", null, parseWith(createTokenSchema, request.body ?? {}, "request body")),
  );

  app.get("/worker-tokens", { config: ADMIN_ROUTE }, async () =>
    (await db.tokens.list("worker")).map(tokenView),
  );

  app.delete<{ Params: { id: string } }>(
    "/worker-tokens/:id",
    { config: ADMIN_ROUTE },
    async (request, reply) => {
      await revoke(request, "worker", request.params.id);
      // Its workers leave now, not at their next reconnect (which the guard refuses).
      const names = app.services.registry.disconnectJoinedWith(
        request.params.id,
        "its join token was revoked",
      );
      if (names.length)
        request.log.info(
          { tokenId: request.params.id, workers: names },
          "workers of a revoked join token disconnected",
        );
      return reply.code(204).send();
    },
  );

  /** Makes a token of `kind`; its secret is in this answer only. */
  async function make(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: TokenKind,
    userName: string | null,
    body: CreateToken,
  ) {
    const made = await tokens.create({
      kind,
      name: body.name,
      userName,
      createdBy: request.actor.name,
      expiresInMs: body.expiresIn,
    });
    await audit.record(request.actor, `${AUDITED_AS[kind]}.create`, made.id, body.name);
    return reply.code(201).send({ ...tokenView(made.row), token: made.token });
  }

  /** Revokes a token of `kind` the caller may revoke (their own; any, for an admin). */
  async function revoke(request: FastifyRequest, kind: TokenKind, id: string): Promise<void> {
    const row = id.length <= 40 ? await db.tokens.get(id) : null;
    const allowed =
      row?.kind === kind && (request.actor.role === "admin" || row.userName === request.actor.user);
    if (!row || !allowed) throw new VolleyError("VOL_ERR_NOT_FOUND", `no token ${id}`);
    if (row.revokedAt === null) {
      await tokens.revoke(row.id);
      await audit.record(request.actor, `${AUDITED_AS[kind]}.revoke`, row.id, row.name);
    }
  }
}
