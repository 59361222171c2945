import { createHash, randomBytes } from "node:crypto";

/** How long a dashboard login lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Most live sessions kept; the oldest goes first past it. */
const MAX_SESSIONS = 10_000;

/**
 * Dashboard logins as opaque, revocable ids: the cookie never carries the token (browsers send a
 * host's cookies to every port of it, so a target on the same host would receive it). Only each
 * id's hash is kept, in memory: a master restart signs everyone out.
 */
export class DashboardSessions {
  private readonly expiry = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new session; its id is returned once, for the cookie. */
  create(): string {
    const id = randomBytes(32).toString("base64url");
    if (this.expiry.size >= MAX_SESSIONS) this.expiry.delete(this.expiry.keys().next().value as string);
    this.expiry.set(hash(id), this.now() + SESSION_TTL_MS);
    return id;
  }

  valid(id: string | undefined): boolean {
    if (id === undefined || id.length > 100) return false;
    const key = hash(id);
    const expires = this.expiry.get(key);
    if (expires === undefined) return false;
    if (expires > this.now()) return true;
    this.expiry.delete(key);
    return false;
  }

  revoke(id: string | undefined): void {
    if (id !== undefined && id.length <= 100) this.expiry.delete(hash(id));
  }
}

function hash(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}
