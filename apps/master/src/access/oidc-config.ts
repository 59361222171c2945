import { ConfigError, type Role, roleSchema } from "@volley/protocol";
import { isLoopback } from "../loopback.js";

/** Sign-in through an OpenID Connect provider: the authorization code flow with PKCE. */
export interface OidcOptions {
  /** The provider's issuer URL (its `/.well-known/openid-configuration` is read from it). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim (of the ID token or userinfo) whose value(s) give the role. @defaultValue "roles" */
  roleClaim?: string;
  /**
   * Claim value → role. A user with several mapped values gets the highest role; one with none
   * is refused. @defaultValue the role names themselves (`viewer`, `tester`, `admin`)
   */
  roles?: Record<string, Role>;
  /**
   * Where the provider sends the browser back: `https://volley.example/api/session/oidc/callback`.
   * @defaultValue that path on the scheme and host the browser used
   */
  redirectUrl?: string;
}

export type ResolvedOidc = Required<Omit<OidcOptions, "redirectUrl">> & Pick<OidcOptions, "redirectUrl">;

export const OIDC_CALLBACK_PATH = "/api/session/oidc/callback";

const IDENTITY_ROLES: Record<string, Role> = { viewer: "viewer", tester: "tester", admin: "admin" };

/**
 * `--oidc-*` flags or `VOLLEY_OIDC_*`: all three of issuer, client id and secret, or none. The
 * issuer is https, except on loopback (a provider on this machine, as in the tests).
 */
export function resolveOidc(
  options: OidcOptions | undefined,
  env: NodeJS.ProcessEnv,
): ResolvedOidc | undefined {
  const issuer = options?.issuer ?? (env.VOLLEY_OIDC_ISSUER || undefined);
  const clientId = options?.clientId ?? (env.VOLLEY_OIDC_CLIENT_ID || undefined);
  const clientSecret = options?.clientSecret ?? (env.VOLLEY_OIDC_CLIENT_SECRET || undefined);
  const given = [issuer, clientId, clientSecret].filter((value) => value !== undefined).length;
  if (given === 0) return undefined;
  if (given < 3) {
    throw new ConfigError("--oidc-issuer, --oidc-client-id and --oidc-client-secret go together");
  }
  checkUrl("--oidc-issuer", issuer as string);
  const redirectUrl = options?.redirectUrl ?? (env.VOLLEY_OIDC_REDIRECT_URL || undefined);
  if (redirectUrl !== undefined) {
    // The master's own address: plain http where the master itself serves plain http.
    checkUrl("--oidc-redirect-url", redirectUrl, true);
    if (new URL(redirectUrl).pathname !== OIDC_CALLBACK_PATH) {
      throw new ConfigError(`--oidc-redirect-url: the path must be ${OIDC_CALLBACK_PATH}`);
    }
  }
  const roleClaim = options?.roleClaim ?? (env.VOLLEY_OIDC_ROLE_CLAIM || "roles");
  if (!/^[A-Za-z0-9_.:/-]{1,100}$/.test(roleClaim)) {
    throw new ConfigError(`--oidc-role-claim: "${roleClaim.slice(0, 100)}" is not a claim name`);
  }
  const roles =
    options?.roles ??
    (env.VOLLEY_OIDC_ROLES ? parseRoleMap(env.VOLLEY_OIDC_ROLES.split(",")) : IDENTITY_ROLES);
  return {
    issuer: issuer as string,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    roleClaim,
    roles,
    redirectUrl,
  };
}

/** `--oidc-role VALUE=ROLE` (repeatable): a claim value and the role it gives. */
export function parseRoleMap(entries: string[]): Record<string, Role> {
  const map: Record<string, Role> = {};
  for (const entry of entries.map((e) => e.trim()).filter(Boolean)) {
    const at = entry.lastIndexOf("=");
    const role = roleSchema.safeParse(entry.slice(at + 1));
    if (at < 1 || !role.success) {
      throw new ConfigError(`--oidc-role: "${entry.slice(0, 100)}" is not VALUE=viewer|tester|admin`);
    }
    map[entry.slice(0, at)] = role.data;
  }
  if (Object.keys(map).length === 0) throw new ConfigError("--oidc-role: no VALUE=ROLE given");
  return map;
}

function checkUrl(flag: string, url: string, httpAllowed = false): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  const loopback = parsed !== undefined && isLoopback(parsed.hostname.replace(/^\[|\]$/g, ""));
  if (
    !parsed ||
    !(parsed.protocol === "https:" || (parsed.protocol === "http:" && (loopback || httpAllowed)))
  ) {
    const allowed = httpAllowed ? "an http:// or https://" : "an https:// URL (http:// only on loopback)";
    throw new ConfigError(`${flag}: "${url.slice(0, 200)}" is not ${allowed}`);
  }
}
