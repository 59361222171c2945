import type { ApiToken } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type ApiTokenRow = ApiToken;
export type NewApiToken = Pick<
  ApiToken,
  "id" | "kind" | "name" | "hash" | "userName" | "createdBy" | "expiresAt"
>;

export class ApiTokenRepository {
  constructor(private readonly client: DbClient) {}

  create(token: NewApiToken): Promise<ApiTokenRow> {
    return this.client.apiToken.create({ data: token });
  }

  byHash(hash: string): Promise<ApiTokenRow | null> {
    return this.client.apiToken.findUnique({ where: { hash } });
  }

  get(id: string): Promise<ApiTokenRow | null> {
    return this.client.apiToken.findUnique({ where: { id } });
  }

  /** Tokens of one kind, newest first; of one user when `userName` is given. */
  list(kind: string, userName?: string): Promise<ApiTokenRow[]> {
    return this.client.apiToken.findMany({
      where: { kind, ...(userName !== undefined ? { userName } : {}) },
      orderBy: { createdAt: "desc" },
    });
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.client.apiToken.update({ where: { id }, data: { revokedAt: at } });
  }

  async used(id: string, at: Date): Promise<void> {
    await this.client.apiToken.update({ where: { id }, data: { lastUsedAt: at } });
  }
}
