import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Passwords as scrypt hashes (memory-hard: 2^15 x 8 x 128 bytes = 32 MiB per check, ~50 ms), in
 * the form "scrypt$N$r$p$salt$hash" so the cost can rise later without breaking stored hashes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
/** scrypt refuses to use more than maxmem; room for the chosen cost and no more. */
const MAX_MEM = 128 * COST.N * COST.r * 2;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether `password` matches `stored`; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (
    ![cost.N, cost.r, cost.p].every(Number.isSafeInteger) ||
    cost.N > 2 ** 20 ||
    cost.r > 32 ||
    cost.p > 4
  ) {
    return false;
  }
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** The stored "hash" of a user who signs in through the identity provider: no password matches it. */
export const OIDC_PASSWORD_HASH = "oidc";

let decoy: Promise<string> | undefined;
/** A hash of a random password: checked when the user does not exist, so the answer takes as long. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString("base64url"));
  return decoy;
}

/** A one-time password handed to a new user: 18 random bytes, 24 characters. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LENGTH,
      { ...cost, maxmem: Math.max(MAX_MEM, 128 * cost.N * cost.r * 2) },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}
