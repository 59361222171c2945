import {
  auditQuerySchema,
  changePasswordSchema,
  createScheduleSchema,
  createTokenSchema,
  createUserSchema,
  signInSchema,
  updateScheduleSchema,
  updateUserSchema,
} from "@volley/protocol";
import { z } from "zod";

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
const body = (schema: z.ZodType) => ({
  required: true,
  content: { "application/json": { schema: json(schema) } },
});
const answer = (description: string) => ({ description, content: { "application/json": {} } });
const nameParam = [{ name: "name", in: "path", required: true, schema: { type: "string" } }];
const idParam = [{ name: "id", in: "path", required: true, schema: { type: "string" } }];

/**
 * Sign-in, users, tokens, the audit log (docs/accounts.md) and schedules (docs/schedules.md);
 * each summary names its role.
 */
export function teamPaths(): Record<string, unknown> {
  const auditQuery = json(auditQuerySchema) as { properties: Record<string, unknown> };
  return {
    "/api/session": {
      get: {
        summary: "Who is calling (public; null when nobody is signed in)",
        responses: { 200: answer("{ user, role, via } or null") },
      },
      post: {
        summary: "Sign in with a user's password (public): sets the HttpOnly session cookie",
        requestBody: body(signInSchema),
        responses: {
          200: answer("{ user, role, via }"),
          401: answer("wrong user or password"),
          429: answer("too many failures"),
        },
      },
      delete: { summary: "Sign out (public)", responses: { 204: { description: "signed out" } } },
    },
    "/api/session/password": {
      post: {
        summary: "Set your own password (viewer); ends your sessions",
        requestBody: body(changePasswordSchema),
        responses: { 204: { description: "changed" }, 401: answer("the current password is wrong") },
      },
    },
    "/api/session/oidc": {
      get: {
        summary: "Single sign-on (public; only with --oidc-issuer): to the OpenID provider with PKCE",
        responses: { 302: { description: "to the provider's authorization endpoint" } },
      },
    },
    "/api/session/oidc/callback": {
      get: {
        summary: "Back from the provider (public): sets the session cookie, or to /?signin-error=…",
        responses: {
          200: { description: "signed in: a page that opens the dashboard" },
          302: { description: "refused: to the sign-in page with the reason" },
        },
      },
    },
    "/api/users": {
      get: {
        summary: "Users (admin)",
        responses: { 200: answer('[{ name, role, createdAt, createdBy, signIn: "password" | "oidc" }]') },
      },
      post: {
        summary: "Make a user (admin); answers their one-time password once",
        requestBody: body(createUserSchema),
        responses: { 201: answer("{ name, role, password }"), 409: answer("the name is taken") },
      },
    },
    "/api/users/{name}": {
      patch: {
        summary: "Change a user's role or reset their password (admin); ends their sessions",
        parameters: nameParam,
        requestBody: body(updateUserSchema),
        responses: { 200: answer("{ name, role, password? }"), 404: answer("no such user") },
      },
      delete: {
        summary: "Delete a user and their tokens (admin)",
        parameters: nameParam,
        responses: { 204: { description: "deleted" }, 404: answer("no such user") },
      },
    },
    "/api/tokens": {
      get: {
        summary: "Your personal tokens, every user's for an admin (viewer); never the secrets",
        responses: { 200: answer("[token]") },
      },
      post: {
        summary: "Make a personal API token (viewer, signed in as a user); the secret is answered once",
        requestBody: body(createTokenSchema),
        responses: { 201: answer("{ id, token, name, expiresAt, … }") },
      },
    },
    "/api/tokens/{id}": {
      delete: {
        summary: "Revoke a personal token: your own, or any for an admin",
        parameters: idParam,
        responses: { 204: { description: "revoked" }, 404: answer("no such token") },
      },
    },
    "/api/worker-tokens": {
      get: {
        summary: "Worker join tokens (admin); never the secrets",
        responses: { 200: answer("[token]") },
      },
      post: {
        summary: "Make a worker join token (admin); the secret is answered once",
        requestBody: body(createTokenSchema),
        responses: { 201: answer("{ id, token, name, expiresAt, … }") },
      },
    },
    "/api/worker-tokens/{id}": {
      delete: {
        summary: "Revoke a join token (admin): its workers are disconnected at once",
        parameters: idParam,
        responses: { 204: { description: "revoked" }, 404: answer("no such token") },
      },
    },
    "/api/schedules": {
      get: {
        summary: "Schedules with their next and last firing (viewer)",
        responses: { 200: answer("[schedule]") },
      },
      post: {
        summary: "Make a schedule (tester)",
        requestBody: body(createScheduleSchema),
        responses: {
          201: answer("the schedule"),
          400: answer("a bad cron, time zone, scenario or limit"),
          409: answer("the name is taken"),
        },
      },
    },
    "/api/schedules/{id}": {
      patch: {
        summary: "Change a schedule's cron, time zone, baseline, limits, or pause it (tester)",
        parameters: idParam,
        requestBody: body(updateScheduleSchema),
        responses: { 200: answer("the schedule"), 404: answer("no such schedule") },
      },
      delete: {
        summary: "Delete a schedule (tester)",
        parameters: idParam,
        responses: { 204: { description: "deleted" }, 404: answer("no such schedule") },
      },
    },
    "/api/audit": {
      get: {
        summary: "Who changed what, newest first (admin)",
        parameters: Object.keys(auditQuery.properties).map((name) => ({
          name,
          in: "query",
          schema: auditQuery.properties[name],
        })),
        responses: { 200: answer("[{ id, at, actor, action, target, detail }]") },
      },
    },
  };
}
