import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster } from "./support/in-process.js";
import { startOidcProvider, type TestOidcProvider } from "./support/oidc-provider.js";

// OIDC sign-in (authorization code + PKCE) against a real OpenID provider on loopback: the
// browser goes out from the master, signs in at the provider, and comes back with a session
// whose role the provider's claim decided.
const TOKEN = "oidc-test-token-12345678";
const ACCOUNTS = {
  "ada-sub": { preferred_username: "ada", groups: ["perf-testers"], email: "ada@example.com" },
  "root-sub": { preferred_username: "root", groups: ["perf-testers", "perf-admins"] },
  "guest-sub": { preferred_username: "guest", groups: ["marketing"] },
  // Asks for the name of a local user: gets a name of its own, never that account.
  "mallory-sub": { preferred_username: "local-admin", groups: ["perf-testers"] },
};

let provider: TestOidcProvider;
let master: RunningMaster;

beforeAll(async () => {
  provider = await startOidcProvider(ACCOUNTS);
  master = await startTestMaster({
    token: TOKEN,
    oidc: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      roleClaim: "groups",
      roles: { "perf-testers": "tester", "perf-admins": "admin" },
    },
  });
  provider.register(`${master.url}/api/session/oidc/callback`);
});
afterAll(async () => {
  await master?.close();
  await provider?.close();
});

/** A browser enough for the flow: follows redirects by hand and keeps cookies by name. */
class Browser {
  readonly cookies = new Map<string, string>();
  async get(url: string): Promise<Response> {
    const response = await fetch(url, { redirect: "manual", headers: { cookie: this.cookieHeader() } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
    return response;
  }
  /** Follows redirects from `url` until a page answers; returns it and the URLs passed. */
  async visit(url: string): Promise<{ response: Response; trail: string[] }> {
    const trail = [url];
    let response = await this.get(url);
    while (response.status >= 300 && response.status < 400 && trail.length < 30) {
      const next = new URL(response.headers.get("location") as string, trail.at(-1)).href;
      trail.push(next);
      response = await this.get(next);
    }
    return { response, trail };
  }
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

async function session(browser: Browser): Promise<unknown> {
  const response = await fetch(`${master.url}/api/session`, { headers: { cookie: browser.cookieHeader() } });
  return response.json();
}

async function signInThroughProvider(
  account: string,
): Promise<{ browser: Browser; trail: string[]; page: string }> {
  provider.signInAs(account);
  const browser = new Browser();
  const { response, trail } = await browser.visit(`${master.url}/api/session/oidc`);
  return { browser, trail, page: await response.text() };
}

describe("OIDC sign-in", () => {
  it("signs a user in through the provider with PKCE, the role from the claim", async () => {
    const config = await (await fetch(`${master.url}/api/config`)).json();
    expect(config.oidcProvider).toBe(new URL(provider.issuer).host);

    const { browser, trail, page } = await signInThroughProvider("ada-sub");
    expect(trail[1]).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
    expect(trail.at(-1)).toMatch(/\/api\/session\/oidc\/callback\?code=/);
    const request = provider.authorizationRequests.at(-1);
    expect(request?.get("code_challenge_method")).toBe("S256");
    expect(request?.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request?.get("nonce")).toBeTruthy();
    expect(page).toContain('http-equiv="refresh"');
    expect(browser.cookies.has("volley_oidc")).toBe(false);
    expect(await session(browser)).toEqual({ user: "ada", role: "tester", via: "oidc" });

    // A tester: runs yes, users no.
    const cookie = browser.cookieHeader();
    const users = await fetch(`${master.url}/api/users`, { headers: { cookie } });
    expect(users.status).toBe(403);

    const listed = (await (
      await fetch(`${master.url}/api/users`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as Array<{ name: string; role: string; signIn: string; createdBy: string }>;
    expect(listed).toContainEqual(expect.objectContaining({ name: "ada", role: "tester", signIn: "oidc" }));
    const audit = (await (
      await fetch(`${master.url}/api/audit?action=session.sign-in`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as Array<{ actor: string; detail: string }>;
    expect(audit[0]).toMatchObject({ actor: "ada", detail: "oidc, role tester" });
  });

  it("gives the highest mapped role, and follows the provider when it changes", async () => {
    const { browser } = await signInThroughProvider("root-sub");
    expect(await session(browser)).toEqual({ user: "root", role: "admin", via: "oidc" });
    ACCOUNTS["root-sub"].groups = ["perf-testers"];
    const again = await signInThroughProvider("root-sub");
    expect(await session(again.browser)).toEqual({ user: "root", role: "tester", via: "oidc" });
  });

  it("refuses an account whose claim maps to no role, saying why on the sign-in page", async () => {
    const { browser, trail } = await signInThroughProvider("guest-sub");
    const landing = new URL(trail.at(-1) as string);
    expect(landing.pathname).toBe("/");
    expect(landing.searchParams.get("signin-error")).toMatch(
      /your account has no Volley role: the "groups" claim/,
    );
    expect(await session(browser)).toBeNull();
    const users = (await (
      await fetch(`${master.url}/api/users`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as Array<{ name: string }>;
    expect(users.map((u) => u.name)).not.toContain("guest");
  });

  it("never lets a provider account take a local user's name or password", async () => {
    const made = await fetch(`${master.url}/api/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "local-admin", role: "admin" }),
    });
    const { password } = (await made.json()) as { password: string };
    const { browser } = await signInThroughProvider("mallory-sub");
    expect(await session(browser)).toEqual({
      user: expect.stringMatching(/^local-admin-[0-9a-f]{8}$/),
      role: "tester",
      via: "oidc",
    });
    const local = await fetch(`${master.url}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "local-admin", password }),
    });
    expect(await local.json()).toMatchObject({ user: "local-admin", role: "admin" });
    // The provider's user has no password here: none signs it in, none can be reset.
    const ada = await fetch(`${master.url}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "ada", password: "oidc" }),
    });
    expect(ada.status).toBe(401);
    const reset = await fetch(`${master.url}/api/users/ada`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ resetPassword: true }),
    });
    expect(reset.status).toBe(400);
    expect((await reset.json()).error).toMatch(/resetPassword: ada signs in through the identity provider/);
  });

  it("refuses a callback this browser did not start, and a code used twice", async () => {
    provider.signInAs("ada-sub");
    const victim = new Browser();
    // The attacker's browser runs the flow up to the callback and hands the URL to a victim.
    const attacker = new Browser();
    let response = await attacker.get(`${master.url}/api/session/oidc`);
    let location = response.headers.get("location") as string;
    while (!location.includes("/api/session/oidc/callback")) {
      response = await attacker.get(new URL(location, provider.issuer).href);
      location = response.headers.get("location") as string;
    }
    const planted = await victim.visit(location);
    expect(new URL(planted.trail.at(-1) as string).searchParams.get("signin-error")).toMatch(
      /was not started here or took too long/,
    );
    expect(await session(victim)).toBeNull();
    // The browser that started it completes once; the same callback with the same cookie again is refused.
    const pending = attacker.cookies.get("volley_oidc") as string;
    await attacker.visit(location);
    expect(await session(attacker)).toMatchObject({ user: "ada" });
    const replay = new Browser();
    replay.cookies.set("volley_oidc", pending);
    const again = await replay.visit(location);
    expect(new URL(again.trail.at(-1) as string).searchParams.get("signin-error")).toMatch(
      /not started here/,
    );
    expect(await session(replay)).toBeNull();
  });

  it("sends a provider's refusal back to the sign-in page", async () => {
    const browser = new Browser();
    await browser.get(`${master.url}/api/session/oidc`);
    const { trail } = await browser.visit(
      `${master.url}/api/session/oidc/callback?error=access_denied&state=x`,
    );
    expect(new URL(trail.at(-1) as string).searchParams.get("signin-error")).toBe(
      "the identity provider refused the sign-in: access_denied",
    );
  });
});
