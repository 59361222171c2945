import type { Role, SessionInfo } from "@volley/protocol";

/** Who made a request, as the request guard found out (`request.actor`). */
export interface Actor {
  /** A user's name; "token" for the master's token; "local" when this master asks no credentials. */
  name: string;
  role: Role;
  via: SessionInfo["via"];
  /** Set when a user (not the master token, not an open master) is behind the request. */
  user?: string;
}

/** The caller of a master that asks no credentials (loopback without a token): the one admin. */
export const LOCAL_ACTOR: Actor = { name: "local", role: "admin", via: "open" };
/** The master's `--token`: an admin credential, as in earlier rounds. */
export const MASTER_TOKEN_ACTOR: Actor = { name: "token", role: "admin", via: "master-token" };

/** The identity provider, as the audit log names it when a sign-in makes a user or changes its role. */
export const OIDC_ACTOR: Actor = { name: "oidc", role: "admin", via: "oidc" };

/** Who a run records as starting, stopping or changing it: nobody on a master that asks no credentials (there is only "local"). */
export function recordedActor(actor: Actor): string | undefined {
  return actor.via === "open" ? undefined : actor.name;
}
