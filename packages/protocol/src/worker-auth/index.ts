import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

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
