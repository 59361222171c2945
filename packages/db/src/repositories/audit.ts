import type { AuditEntry } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type AuditRow = AuditEntry;
export type NewAuditEntry = Pick<AuditEntry, "actor" | "action" | "target"> & { detail?: string };

export interface AuditFilter {
  limit: number;
  /** Id of the last entry of the previous page (ids grow with time). */
  before?: number;
  actor?: string;
  /** Prefix of the action ("run." for every run action). */
  action?: string;
}

export class AuditRepository {
  constructor(private readonly client: DbClient) {}

  async add(entry: NewAuditEntry): Promise<void> {
    await this.client.auditEntry.create({ data: entry });
  }

  /** Newest first. */
  list(filter: AuditFilter): Promise<AuditRow[]> {
    return this.client.auditEntry.findMany({
      where: {
        ...(filter.before !== undefined ? { id: { lt: filter.before } } : {}),
        ...(filter.actor ? { actor: filter.actor } : {}),
        ...(filter.action ? { action: { startsWith: filter.action } } : {}),
      },
      orderBy: { id: "desc" },
      take: filter.limit,
    });
  }
}
