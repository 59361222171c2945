import { createHash, randomBytes } from "node:crypto";
import type { Actor } from "../access/actor.js";

/** How long a dashboard sign-in lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Most live sessions kept; the oldest goes first past it. */
const MAX_SESSIONS = 10_000;

/**
 * Dashboard sign-ins as opaque, revocable ids, each with who signed in: the cookie never carries
 * a token or a password (browsers send a host's cookies to every port of it, so a target on the
 * same host would receive it). Only each id's hash is kept, in memory: a master restart signs
 * everyone out.
 */
export class DashboardSessions {
  private readonly sessions = new Map<string, { expires: number; actor: Actor }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new session for `actor`; its id is returned once, for the cookie. */
  create(actor: Actor): string {
    const id = randomBytes(32).toString("base64url");
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    this.sessions.set(hash(id), { expires: this.now() + SESSION_TTL_MS, actor });
    return id;
  }

  /** Who the session `id` belongs to, while it lasts. */
  actor(id: string | undefined): Actor | undefined {
    if (id === undefined || id.length > 100) return undefined;
    const key = hash(id);
    const session = this.sessions.get(key);
    if (session === undefined) return undefined;
    if (session.expires > this.now()) return session.actor;
    this.sessions.delete(key);
    return undefined;
  }

  revoke(id: string | undefined): void {
    if (id !== undefined && id.length <= 100) this.sessions.delete(hash(id));
  }

  /** Signs a user out everywhere (deleted, role changed, password changed). */
  revokeUser(user: string): void {
    for (const [key, session] of this.sessions) if (session.actor.user === user) this.sessions.delete(key);
  }
}

function hash(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}
