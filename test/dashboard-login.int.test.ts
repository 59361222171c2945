import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster } from "./support/in-process.js";
import { rawRequest, wsUpgradeStatus } from "./support/raw-http.js";

// The dashboard's login: an opaque session cookie (never the token), revoked by logging out,
// failed logins throttled per address and logged; every answer refuses to be framed or sniffed.
const TOKEN = "login-test-token-123456";
let master: RunningMaster;
let url: string;

beforeAll(async () => {
  master = await startTestMaster({ token: TOKEN, host: "0.0.0.0" });
  url = `http://127.0.0.1:${new URL(master.url).port}`;
});
afterAll(async () => {
  await master?.close();
});

const login = (token: string, headers: Record<string, string> = {}) =>
  rawRequest(
    url,
    "POST",
    "/api/login",
    { "content-type": "application/json", ...headers },
    JSON.stringify({ token }),
  );

function sessionOf(setCookie: string | string[] | undefined): string {
  const line = Array.isArray(setCookie) ? setCookie[0] : (setCookie ?? "");
  const match = /^volley_session=([^;]*);/.exec(line);
  if (!match) throw new Error(`no session cookie in ${line}`);
  return match[1];
}

describe("dashboard login", () => {
  it("sets an opaque session cookie that opens the API and the live feed until logout revokes it", async () => {
    const answer = await login(TOKEN);
    expect(answer.status).toBe(200);
    const setCookie = String(answer.headers["set-cookie"]);
    expect(setCookie).toMatch(/HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200/);
    expect(setCookie).not.toContain(TOKEN);
    expect(setCookie).not.toContain(encodeURIComponent(TOKEN));
    const session = sessionOf(answer.headers["set-cookie"]);
    expect(session.length).toBeGreaterThanOrEqual(40);
    const cookie = { cookie: `volley_session=${session}` };
    expect((await rawRequest(url, "GET", "/api/runs", cookie)).status).toBe(200);
    expect(await wsUpgradeStatus(url, "/ws/live", cookie)).toBe(101);
    // The old cookie, holding the token itself, opens nothing any more.
    expect((await rawRequest(url, "GET", "/api/runs", { cookie: `volley_token=${TOKEN}` })).status).toBe(401);
    // A second login is a second session: logging one out leaves the other.
    const other = sessionOf((await login(TOKEN)).headers["set-cookie"]);
    const out = await rawRequest(url, "POST", "/api/logout", cookie);
    expect(out.status).toBe(200);
    expect(String(out.headers["set-cookie"])).toMatch(/^volley_session=; .*Max-Age=0/);
    expect((await rawRequest(url, "GET", "/api/runs", cookie)).status).toBe(401);
    expect(await wsUpgradeStatus(url, "/ws/live", cookie)).toBe(401);
    expect((await rawRequest(url, "GET", "/api/runs", { cookie: `volley_session=${other}` })).status).toBe(
      200,
    );
  });

  it("refuses an address after 10 failed logins in a minute (429), even with the right token then", async () => {
    const from = { "x-forwarded-for": "198.51.100.7" }; // not trusted: the socket's address counts
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(`guess-${i}`, from)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const refused = await login(TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ code: "VOL_ERR_RATE_LIMITED" });
    // A bearer token still works: the throttle guards guessing through the login form.
    expect((await rawRequest(url, "GET", "/api/runs", { authorization: `Bearer ${TOKEN}` })).status).toBe(
      200,
    );
  });

  it("every answer forbids framing and sniffing", async () => {
    for (const path of ["/api/health", "/api/config", "/api/runs", "/nowhere"]) {
      const answer = await rawRequest(url, "GET", path);
      expect(answer.headers["x-frame-options"], path).toBe("DENY");
      expect(answer.headers["content-security-policy"], path).toBe("frame-ancestors 'none'");
      expect(answer.headers["x-content-type-options"], path).toBe("nosniff");
    }
  });
});
