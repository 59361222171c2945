import { randomBytes } from "node:crypto";
import { WORKER_TOKEN_PREFIX } from "@volley/protocol";

/**
 * Token secrets: a prefix that says what the token is (so a leaked one is recognised by secret
 * scanners and by people), then 32 random bytes. Only the SHA-256 of the whole string is kept:
 * a token has 256 bits of entropy, so a fast hash is enough (unlike a password).
 */
export const PERSONAL_TOKEN_PREFIX = "vol_pat_";
export { WORKER_TOKEN_PREFIX };

/** A personal token: the prefix and the secret. */
export function newPersonalSecret(): string {
  return PERSONAL_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** A join token names its id before the secret: a joining worker tells the master which it holds. */
export function newJoinSecret(id: string): string {
  return `${WORKER_TOKEN_PREFIX}${id}.${randomBytes(32).toString("base64url")}`;
}

/** A token's id: short, random, safe in a URL (and without the "." a join token splits on). */
export function newTokenId(): string {
  return randomBytes(9).toString("base64url");
}
