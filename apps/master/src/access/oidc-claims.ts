import { createHash } from "node:crypto";
import { ROLES, type Role, userNameSchema } from "@volley/protocol";

/** The claims Volley reads of a signed-in user (ID token merged with userinfo). */
export type Claims = Record<string, unknown>;

/**
 * The highest role the claim's value(s) map to: a string, an array of strings, or a
 * space-separated string (as some providers send groups); undefined when none maps (refused).
 */
export function roleFromClaims(claims: Claims, claim: string, roles: Record<string, Role>): Role | undefined {
  const raw = claimValue(claims, claim);
  const values = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/\s+/) : [];
  let best: Role | undefined;
  for (const value of values) {
    if (typeof value !== "string" || !Object.hasOwn(roles, value)) continue;
    const role = roles[value];
    if (best === undefined || ROLES.indexOf(role) > ROLES.indexOf(best)) best = role;
  }
  return best;
}

/** A claim by name; a dotted name reaches into an object claim (`realm_access.roles`, as Keycloak sends). */
export function claimValue(claims: Claims, claim: string): unknown {
  if (Object.hasOwn(claims, claim)) return claims[claim];
  let value: unknown = claims;
  for (const part of claim.split(".")) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The name a new OIDC user gets here: `preferred_username`, else the e-mail, else the subject,
 * reduced to what a user name may hold. The subject, not the name, identifies the user later.
 */
export function proposedUserName(claims: Claims): string {
  for (const key of ["preferred_username", "email", "sub"]) {
    const value = claims[key];
    if (typeof value !== "string") continue;
    const name = value
      .replace(/[^A-Za-z0-9._@-]/g, "-")
      .replace(/^[^A-Za-z0-9]+/, "")
      .slice(0, 48);
    if (userNameSchema.safeParse(name).success) return name;
  }
  return `oidc-${subjectTag(String(claims.sub))}`;
}

/** A short, stable tag of a subject: what tells two users apart who asked for the same name. */
export function subjectTag(subject: string): string {
  return createHash("sha256").update(subject).digest("hex").slice(0, 8);
}
