import type { ApiTokenRow, Database } from "@volley/db";
import type { TokenView } from "@volley/protocol";
import { tokenHash } from "@volley/protocol/worker-auth";
import {
  newJoinSecret,
  newPersonalSecret,
  newTokenId,
  PERSONAL_TOKEN_PREFIX,
  WORKER_TOKEN_PREFIX,
} from "./secrets.js";

export type TokenKind = "user" | "worker";

/** How often a token's last-used time is written at most (a busy script would write every request). */
const LAST_USED_EVERY_MS = 60_000;
const PREFIX: Record<TokenKind, string> = { user: PERSONAL_TOKEN_PREFIX, worker: WORKER_TOKEN_PREFIX };

/**
 * Personal API tokens and worker join tokens. Each check reads the database, so a revocation or an
 * expiry takes effect on the next request; only the last-used time is written lazily.
 */
export class TokenStore {
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new token; its secret is in the answer once and never stored. */
  async create(input: {
    kind: TokenKind;
    name: string;
    userName: string | null;
    createdBy: string;
    expiresInMs?: number;
  }): Promise<{ id: string; token: string; row: ApiTokenRow }> {
    const id = newTokenId();
    const token = input.kind === "worker" ? newJoinSecret(id) : newPersonalSecret();
    const row = await this.db.tokens.create({
      id,
      kind: input.kind,
      name: input.name,
      hash: tokenHash(token),
      userName: input.userName,
      createdBy: input.createdBy,
      expiresAt: input.expiresInMs !== undefined ? new Date(this.now() + input.expiresInMs) : null,
    });
    return { id: row.id, token, row };
  }

  /** The live token of `kind` whose secret is `secret`: not revoked, not expired. */
  async check(kind: TokenKind, secret: string): Promise<ApiTokenRow | undefined> {
    if (!secret.startsWith(PREFIX[kind]) || secret.length > 200) return undefined;
    const row = await this.db.tokens.byHash(tokenHash(secret));
    if (row?.kind !== kind || !this.live(row)) return undefined;
    await this.touch(row);
    return row;
  }

  /** The live join token of id `id` (its hash is the key its workers prove). */
  async joinToken(id: string): Promise<ApiTokenRow | undefined> {
    const row = id.length <= 40 ? await this.db.tokens.get(id) : null;
    if (row?.kind !== "worker" || !this.live(row)) return undefined;
    await this.touch(row);
    return row;
  }

  private async touch(row: ApiTokenRow): Promise<void> {
    const now = this.now();
    if (now - (this.lastWritten.get(row.id) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastWritten.set(row.id, now);
    await this.db.tokens.used(row.id, new Date(now));
  }

  live(row: ApiTokenRow): boolean {
    return row.revokedAt === null && (row.expiresAt === null || row.expiresAt.getTime() > this.now());
  }

  async revoke(id: string): Promise<void> {
    await this.db.tokens.revoke(id, new Date(this.now()));
    this.lastWritten.delete(id);
  }
}

export function tokenView(row: ApiTokenRow): TokenView {
  return {
    id: row.id,
    name: row.name,
    user: row.userName,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
