import { z } from "zod";
import { positiveDurationSchema } from "../duration.js";

/**
 * Roles, least to most: a viewer reads; a tester also starts, stops and changes runs; an admin
 * also manages workers, users, tokens and reads the audit log. Each role can do all the ones
 * before it can.
 */
export const ROLES = ["viewer", "tester", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

/** Whether `role` may do what `required` may. */
export function roleAllows(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** A user's name: what they sign in with and what the audit log shows. */
export const userNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, {
    error: "use letters, digits and . _ @ - (starting with a letter or digit)",
  });

/** Shortest password a user may choose (generated ones are longer). */
export const MIN_PASSWORD_LENGTH = 12;
const passwordSchema = z.string().min(1).max(200);

/** `POST /api/users` (admin). */
export const createUserSchema = z.strictObject({ name: userNameSchema, role: roleSchema });
/** `PATCH /api/users/:name` (admin): a new role, and/or a new one-time password. */
export const updateUserSchema = z
  .strictObject({ role: roleSchema.optional(), resetPassword: z.literal(true).optional() })
  .refine((body) => body.role !== undefined || body.resetPassword !== undefined, {
    error: 'give "role" or "resetPassword": true',
  });
/** `POST /api/session`: sign in. */
export const signInSchema = z.strictObject({ user: userNameSchema, password: passwordSchema });
/** `POST /api/session/password`: a signed-in user sets their own password. */
export const changePasswordSchema = z.strictObject({
  current: passwordSchema,
  next: z
    .string()
    .min(MIN_PASSWORD_LENGTH, { error: `must be at least ${MIN_PASSWORD_LENGTH} characters` })
    .max(200),
});

/** Longest a token may live: one year. */
export const MAX_TOKEN_LIFETIME_MS = 366 * 86_400_000;
/** `POST /api/tokens` and `POST /api/worker-tokens`: a name, and optionally how long it lives ("30d"). */
export const createTokenSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  expiresIn: z
    .string()
    .max(20)
    // Token lifetimes are told in days ("30d"); scenario durations stop at hours.
    .transform((text) => text.trim().replace(/^(\d{1,3})d$/, (_, days: string) => `${Number(days) * 24}h`))
    .pipe(positiveDurationSchema)
    .refine((ms) => ms <= MAX_TOKEN_LIFETIME_MS, { error: "must be at most a year (366d)" })
    .optional(),
});

export type CreateToken = z.output<typeof createTokenSchema>;

/** `GET /api/audit` query: newest first, paged by `before` (an entry's id). */
export const auditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().min(1).optional(),
  actor: z.string().min(1).max(100).optional(),
  action: z.string().min(1).max(100).optional(),
});

/** Who is calling, as `GET /api/session` answers. */
export interface SessionInfo {
  /** A user's name; "token" for the master's token; "local" when this master asks no credentials. */
  user: string;
  role: Role;
  /**
   * How the caller proved it: a sign-in cookie (after a password, or through the identity
   * provider: "oidc"), a personal token, the master's token, or nothing needed.
   */
  via: "session" | "oidc" | "personal-token" | "master-token" | "open";
}

/** One line of `GET /api/audit`. */
export interface AuditEntryView {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  detail: string | null;
}

/** One token as `GET /api/tokens` and `GET /api/worker-tokens` list it (never its secret). */
export interface TokenView {
  id: string;
  name: string;
  user: string | null;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
