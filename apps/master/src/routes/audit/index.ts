import { type AuditEntryView, auditQuerySchema, parseWith } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { ADMIN_ROUTE } from "../../plugins/route-access.js";

/**
 * `GET /api/audit` (admin): who changed what, newest first, as an array; the next page is
 * `?before=` the last entry's id.
 */
export async function auditRoutes(app: FastifyInstance): Promise<void> {
  app.get("/", { config: ADMIN_ROUTE }, async (request): Promise<AuditEntryView[]> => {
    const query = parseWith(auditQuerySchema, request.query, "query");
    const rows = await app.services.db.audit.list(query);
    return rows.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      action: row.action,
      target: row.target,
      detail: row.detail,
    }));
  });
}
