import { randomBytes } from "node:crypto";
import * as openid from "openid-client";
import type { Claims } from "./oidc-claims.js";
import type { ResolvedOidc } from "./oidc-config.js";

/** How long a browser has between leaving for the provider and coming back. */
export const OIDC_LOGIN_TTL_MS = 10 * 60_000;
/** Most sign-ins under way at once; past it the oldest is forgotten (it can start again). */
const MAX_PENDING = 1000;
/** How long a failed discovery is remembered before the provider is asked again. */
const DISCOVERY_RETRY_MS = 5000;

/** What the master keeps of a sign-in between the redirect out and the callback. */
interface PendingLogin {
  verifier: string;
  nonce: string;
  redirectUri: string;
  expires: number;
}

/**
 * The relying party: discovers the provider (lazily, so a master starts while its provider is
 * down), sends browsers out with state, nonce and a PKCE challenge, and turns the callback into
 * verified claims. Pending sign-ins are keyed by a random id the browser carries in a cookie
 * bound to the `state` sent out; each is used once.
 */
export class OidcClient {
  private readonly pending = new Map<string, PendingLogin>();
  private configuration?: Promise<openid.Configuration>;
  private failedAt = 0;

  constructor(
    private readonly options: ResolvedOidc,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where to send the browser, and the id of the pending sign-in (the browser's cookie). */
  async begin(redirectUri: string): Promise<{ url: string; id: string }> {
    const config = await this.discover();
    const verifier = openid.randomPKCECodeVerifier();
    const nonce = openid.randomNonce();
    const id = randomBytes(24).toString("base64url");
    this.forgetExpired();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(id, { verifier, nonce, redirectUri, expires: this.now() + OIDC_LOGIN_TTL_MS });
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid profile email",
      code_challenge: await openid.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      // The state is the pending id itself: the callback must come back with the id this
      // browser holds in its cookie, so a code cannot be planted in another browser.
      state: id,
      nonce,
    });
    return { url: url.href, id };
  }

  /**
   * The callback: checks state against the browser's pending sign-in (used once), exchanges the
   * code with the PKCE verifier and the client secret, verifies the ID token (signature, issuer,
   * audience, nonce, expiry) and adds the userinfo claims.
   */
  async complete(callbackQuery: string, pendingId: string | undefined): Promise<Claims> {
    const login = pendingId === undefined ? undefined : this.pending.get(pendingId);
    if (pendingId !== undefined) this.pending.delete(pendingId);
    if (!login || login.expires < this.now()) {
      throw new OidcError("this sign-in was not started here or took too long: sign in again");
    }
    const config = await this.discover();
    const current = new URL(login.redirectUri);
    current.search = callbackQuery;
    const tokens = await openid.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: login.verifier,
      expectedNonce: login.nonce,
      expectedState: pendingId,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims() as Claims;
    const userinfo = await openid
      .fetchUserInfo(config, tokens.access_token, String(idClaims.sub))
      .catch(() => ({}) as Claims);
    return { ...userinfo, ...idClaims };
  }

  private discover(): Promise<openid.Configuration> {
    if (this.configuration && this.failedAt && this.now() - this.failedAt > DISCOVERY_RETRY_MS) {
      this.configuration = undefined;
    }
    this.configuration ??= this.load();
    return this.configuration;
  }

  private async load(): Promise<openid.Configuration> {
    const { issuer, clientId, clientSecret } = this.options;
    const url = new URL(issuer);
    try {
      this.failedAt = 0;
      // http only reaches a provider on loopback (oidc-config.ts refuses any other).
      // client_secret_basic: what a client registered without saying otherwise uses (OIDC Core 9).
      return await openid.discovery(url, clientId, clientSecret, openid.ClientSecretBasic(clientSecret), {
        execute: url.protocol === "http:" ? [openid.allowInsecureRequests] : [],
      });
    } catch (error) {
      this.failedAt = this.now();
      throw new OidcError(`the identity provider at ${issuer} did not answer: ${(error as Error).message}`);
    }
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, login] of this.pending) if (login.expires < now) this.pending.delete(id);
  }
}

/** A sign-in through the provider that did not succeed; its message is shown on the sign-in page. */
export class OidcError extends Error {}
