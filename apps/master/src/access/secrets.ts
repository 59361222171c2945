import { createHash, randomBytes } from "node:crypto";

/**
 * Token secrets: a prefix that says what the token is (so a leaked one is recognised by secret
 * scanners and by people), then 32 random bytes. Only the SHA-256 of the whole string is kept:
 * a token has 256 bits of entropy, so a fast hash is enough (unlike a password).
 */
export const PERSONAL_TOKEN_PREFIX = "vol_pat_";
export const WORKER_TOKEN_PREFIX = "vol_wjt_";

export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** A token's id: short, random, safe in a URL. */
export function newTokenId(): string {
  return randomBytes(9).toString("base64url");
}
