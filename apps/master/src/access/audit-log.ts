import type { Database } from "@volley/db";
import type { Logger } from "pino";
import type { Actor } from "./actor.js";

/**
 * Every change made through the API, with who made it: runs started, stopped and changed, users,
 * tokens, workers spawned and retired. Written before the request answers, so a change the caller
 * was told about is in the log; the log line is kept too, for a database that refused the write.
 */
export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  async record(actor: Actor, action: string, target: string, detail?: string): Promise<void> {
    this.log.info({ actor: actor.name, action, target, detail }, "audit");
    await this.db.audit.add({ actor: actor.name, action, target, ...(detail ? { detail } : {}) });
  }
}
