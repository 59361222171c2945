import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { TOKEN_ID_RE, WORKER_TOKEN_PREFIX } from "../messages/master-auth.js";

/**
 * The worker link's mutual authentication, for Node only (kept out of the package's main entry,
 * which the dashboard imports). Each side proves it knows the token by an HMAC over both nonces,
 * labelled by role so one side's proof never passes as the other's.
 */
export function linkProof(
  token: string,
  role: "master" | "worker",
  workerNonce: string,
  masterNonce: string,
): string {
  return createHmac("sha256", token).update(`volley-${role}\n${workerNonce}\n${masterNonce}`).digest("hex");
}

/** Whether `given` is the proof expected, compared in constant time. */
export function proofMatches(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

export function newNonce(): string {
  return randomBytes(24).toString("base64url");
}

/** SHA-256 of a token, base64url: what the master stores of personal and join tokens. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/**
 * The key a worker's link is proved with: the master's token itself, or for a join token its
 * hash (all the master keeps of it) and its id (sent in WORKER_TOKEN_ID_HEADER).
 */
export function linkKey(token: string): { key: string; tokenId: string | null } {
  if (!token.startsWith(WORKER_TOKEN_PREFIX)) return { key: token, tokenId: null };
  const id = token.slice(WORKER_TOKEN_PREFIX.length).split(".")[0];
  return TOKEN_ID_RE.test(id) ? { key: tokenHash(token), tokenId: id } : { key: token, tokenId: null };
}
