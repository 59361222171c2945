import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** A user of the test provider: the claims it releases (besides `sub`, its account id). */
export type TestAccount = Record<string, unknown>;

export interface TestOidcProvider {
  /** The issuer URL, known before the provider is configured (the master needs it first). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Configures the provider with the client's redirect URI (the master's, once it listens). */
  register(redirectUri: string): void;
  /** The account the next interaction signs in as (the provider's "login page" answers itself). */
  signInAs(accountId: string): void;
  /** Authorization requests seen, with their PKCE method: the master must send S256. */
  authorizationRequests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the `oidc-provider` package) on loopback. Its interactions are answered
 * by the test: a login as the account `signInAs` chose, and consent to what was asked.
 */
export async function startOidcProvider(accounts: Record<string, TestAccount>): Promise<TestOidcProvider> {
  let provider: Provider | undefined;
  let account = Object.keys(accounts)[0];
  const authorizationRequests: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end("not configured yet");
      return;
    }
    const url = new URL(req.url ?? "/", "http://provider");
    if (url.pathname === "/auth") authorizationRequests.push(url.searchParams);
    if (url.pathname.startsWith("/interaction/")) {
      interact(provider, account, req, res).catch((error: Error) => res.writeHead(500).end(error.message));
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "volley-test";
  const clientSecret = "a-client-secret-for-tests";
  return {
    issuer,
    clientId,
    clientSecret,
    authorizationRequests,
    register(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        claims: { openid: ["sub"], profile: ["preferred_username", "roles", "groups"], email: ["email"] },
        findAccount: (_ctx, id) =>
          accounts[id] ? { accountId: id, claims: async () => ({ sub: id, ...accounts[id] }) } : undefined,
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        features: { devInteractions: { enabled: false } },
        cookies: { keys: ["test-cookie-key"] },
        pkce: { required: () => true },
      });
    },
    signInAs(id) {
      account = id;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The login page and the consent page, answered at once. */
async function interact(provider: Provider, account: string, req: IncomingMessage, res: ServerResponse) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant = new provider.Grant({
    accountId: details.session?.accountId as string,
    clientId: details.params.client_id as string,
  });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
