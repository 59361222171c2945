import type { RunningMaster } from "@volley/master";
import { ROLES, type Role, type RunDetail, roleAllows } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { spawnCli, waitFor } from "./support/processes.js";
import { rawRequest } from "./support/raw-http.js";

// Accounts: users with roles, password sign-in, personal tokens, the role of every route
// enforced, and an audit log of who changed what. The master's token stays an admin credential.
const TOKEN = "accounts-test-token-1234567";
let fleet: TestFleet;
let master: RunningMaster;
let url: string;

beforeAll(async () => {
  fleet = await startTestFleet({ master: { token: TOKEN, host: "0.0.0.0" } });
  master = fleet.master;
  url = `http://127.0.0.1:${new URL(master.url).port}`;
});
afterAll(async () => {
  await fleet?.close();
});

const json = { "content-type": "application/json" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  rawRequest(
    url,
    method,
    path,
    body === undefined ? headers : { ...json, ...headers },
    body === undefined ? undefined : JSON.stringify(body),
  );

async function addUser(name: string, role: Role): Promise<string> {
  const made = await call("POST", "/api/users", bearer(TOKEN), { name, role });
  expect(made.status, made.body).toBe(201);
  return made.json<{ password: string }>().password;
}

async function signIn(user: string, password: string): Promise<string> {
  const answer = await call("POST", "/api/session", {}, { user, password });
  expect(answer.status, answer.body).toBe(200);
  const match = /^volley_session=([^;]+);/.exec(String(answer.headers["set-cookie"]));
  expect(String(answer.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
  return `volley_session=${match?.[1]}`;
}

async function personalToken(
  cookie: string,
  name = "ci",
  expiresIn?: string,
): Promise<{ id: string; token: string }> {
  const made = await call("POST", "/api/tokens", { cookie }, { name, ...(expiresIn ? { expiresIn } : {}) });
  expect(made.status, made.body).toBe(201);
  return made.json<{ id: string; token: string }>();
}

describe("accounts and roles", () => {
  it("checks every route the router knows against every role (deny by default)", async () => {
    const credentials: Record<Role, string> = { viewer: "", tester: "", admin: "" };
    for (const role of ROLES) {
      const cookie = await signIn(`matrix-${role}`, await addUser(`matrix-${role}`, role));
      credentials[role] = (await personalToken(cookie)).token;
    }
    const routes = master.routeTable().filter((r) => r.method !== "HEAD");
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      // Declared beside the route: nothing falls to the default by accident.
      expect(route.access, `${route.method} ${route.url} declares no access`).toBeDefined();
      const path = route.url
        .replace(/:format/, "json")
        .replace(/:[A-Za-z]+/g, "nobody")
        .replace("*", "x");
      const body = ["POST", "PATCH", "PUT"].includes(route.method) ? {} : undefined;
      const anonymous = await call(route.method, path, {}, body);
      const what = `${route.method} ${route.url} (${route.access})`;
      if (route.access === "public" || route.access === "worker-token") {
        expect(anonymous.status, what).not.toBe(403);
        continue;
      }
      expect(anonymous.status, `${what} without credentials`).toBe(401);
      for (const role of ROLES) {
        const answer = await call(route.method, path, bearer(credentials[role]), body);
        if (roleAllows(role, route.access as Role)) {
          expect([401, 403], `${what} as ${role}: ${answer.body}`).not.toContain(answer.status);
        } else {
          expect(answer.status, `${what} as ${role}`).toBe(403);
          expect(answer.json().code).toBe("VOL_ERR_FORBIDDEN");
        }
      }
    }
  });

  it("signs a user in with a cookie that writes only from the master's own origin", async () => {
    const password = await addUser("carol", "tester");
    const wrong = await call("POST", "/api/session", {}, { user: "carol", password: "not-it-at-all" });
    expect(wrong.status).toBe(401);
    const nobody = await call("POST", "/api/session", {}, { user: "nobody", password: "whatever" });
    expect(nobody.status).toBe(401);
    expect(nobody.json().error).toBe(wrong.json().error);
    const cookie = await signIn("carol", password);
    const me = await call("GET", "/api/session", { cookie });
    expect(me.json()).toEqual({ user: "carol", role: "tester", via: "session" });
    // A cross-site page cannot use the cookie to write.
    const crossSite = await call("POST", "/api/runs/nobody/stop", { cookie, origin: "http://evil.example" });
    expect(crossSite.status).toBe(403);
    const fetchMeta = await call("POST", "/api/runs/nobody/stop", { cookie, "sec-fetch-site": "cross-site" });
    expect(fetchMeta.status).toBe(403);
    const sameOrigin = await call("POST", "/api/runs/nobody/stop", { cookie, origin: url });
    expect(sameOrigin.status).toBe(404);
    // A tester may not manage users.
    expect((await call("GET", "/api/users", { cookie })).status).toBe(403);
    // Changing the password ends the session; the new one signs in.
    const changed = await call(
      "POST",
      "/api/session/password",
      { cookie },
      { current: password, next: "a-new-long-password" },
    );
    expect(changed.status, changed.body).toBe(204);
    expect((await call("GET", "/api/session", { cookie })).json()).toBeNull();
    await signIn("carol", "a-new-long-password");
    // Sign-out revokes the cookie at once.
    const again = await signIn("carol", "a-new-long-password");
    expect((await call("DELETE", "/api/session", { cookie: again })).status).toBe(204);
    expect((await call("GET", "/api/session", { cookie: again })).json()).toBeNull();
  });

  it("revokes personal tokens at once, expires them, and follows a change of role", async () => {
    const cookie = await signIn("erin", await addUser("erin", "viewer"));
    const { id, token } = await personalToken(cookie, "laptop");
    expect((await call("GET", "/api/runs", bearer(token))).status).toBe(200);
    expect((await call("POST", "/api/runs/nobody/stop", bearer(token))).status).toBe(403);
    const listed = (await call("GET", "/api/tokens", bearer(token))).json<
      Array<{ lastUsedAt: string | null }>
    >();
    expect(listed).toEqual([expect.objectContaining({ id, name: "laptop", user: "erin", revokedAt: null })]);
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(listed[0].lastUsedAt).not.toBeNull();
    // Promoted: the same token is a tester's now; the session (signed in as a viewer) ends.
    expect((await call("PATCH", "/api/users/erin", bearer(TOKEN), { role: "tester" })).status).toBe(200);
    expect((await call("POST", "/api/runs/nobody/stop", bearer(token))).status).toBe(404);
    expect((await call("GET", "/api/session", { cookie })).json()).toBeNull();
    // Revoked: refused on the very next request.
    expect((await call("DELETE", `/api/tokens/${id}`, bearer(token))).status).toBe(204);
    expect((await call("GET", "/api/runs", bearer(token))).status).toBe(401);
    // Expired: refused once its time is up.
    const cookie2 = await signIn(
      "erin",
      (await call("PATCH", "/api/users/erin", bearer(TOKEN), { resetPassword: true })).json<{
        password: string;
      }>().password,
    );
    const short = await personalToken(cookie2, "short", "1s");
    expect((await call("GET", "/api/runs", bearer(short.token))).status).toBe(200);
    await waitFor(async () => (await call("GET", "/api/runs", bearer(short.token))).status === 401, {
      what: "the 1 s token to expire",
      timeoutMs: 5000,
    });
    // Bad input names the field.
    const bad = await call("POST", "/api/tokens", { cookie: cookie2 }, { name: "x", expiresIn: "400d" });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain("expiresIn");
    const badRole = await call("POST", "/api/users", bearer(TOKEN), { name: "zed", role: "root" });
    expect(badRole.status).toBe(400);
    expect(badRole.body).toContain("role");
    expect((await call("POST", "/api/users", bearer(TOKEN), { name: "erin", role: "viewer" })).status).toBe(
      409,
    );
  });

  it("records who started and stopped a run, and every change in the audit log", async () => {
    const tester = (await personalToken(await signIn("frank", await addUser("frank", "tester")))).token;
    const stopper = (await personalToken(await signIn("gina", await addUser("gina", "tester")))).token;
    const created = await call("POST", "/api/runs", bearer(tester), {
      scenario: {
        name: "accounts-run",
        target: fleet.target.url,
        load: { executor: "constant-vus", vus: 1, duration: "30s" },
        requests: [{ name: "hello", method: "GET", path: "/hello" }],
        thinkTime: "50ms",
      },
    });
    expect(created.status, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    await waitFor(async () => fleet.target.total() > 0, {
      what: "the run to send requests",
      timeoutMs: 10_000,
    });
    expect((await call("POST", `/api/runs/${id}/stop`, bearer(stopper))).status).toBe(202);
    const run = await waitFor(
      async () => {
        const detail = (await call("GET", `/api/runs/${id}`, bearer(tester))).json<RunDetail>();
        return detail.status === "aborted" ? detail : undefined;
      },
      { what: "the run to end", timeoutMs: 20_000 },
    );
    expect(run.startedBy).toBe("frank");
    expect(run.stoppedBy).toBe("gina");
    expect((await call("GET", "/api/audit", bearer(tester))).status).toBe(403);
    const audit = (await call("GET", "/api/audit?limit=500", bearer(TOKEN))).json() as Array<
      Record<string, unknown>
    >;
    const has = (actor: string, action: string, target: string) =>
      audit.some(
        (e) => e.actor === actor && e.action === action && e.target === target && typeof e.at === "string",
      );
    expect(has("frank", "run.start", id)).toBe(true);
    expect(has("gina", "run.stop", id)).toBe(true);
    expect(has("token", "user.create", "frank")).toBe(true);
    expect(audit.some((e) => e.actor === "frank" && e.action === "token.create")).toBe(true);
    expect(has("token", "user.update", "erin")).toBe(true);
    const onlyRuns = (await call("GET", "/api/audit?action=run.", bearer(TOKEN))).json() as Array<{
      action: string;
    }>;
    expect(onlyRuns.length).toBeGreaterThan(1);
    expect(onlyRuns.every((e) => e.action.startsWith("run."))).toBe(true);
  });

  it("adds a user from the command line, and exits 2 naming a bad flag", async () => {
    const made = spawnCli(["user", "add", "hank", "--role", "viewer", "--master", url], {
      VOLLEY_TOKEN: TOKEN,
    });
    expect(await made.exited).toBe(0);
    const password = made.output.join("").trim().split("\n").at(-1) ?? "";
    await signIn("hank", password);
    const bad = spawnCli(["user", "add", "ivan", "--role", "owner", "--master", url], {
      VOLLEY_TOKEN: TOKEN,
    });
    expect(await bad.exited).toBe(2);
    expect(bad.output.join("")).toContain("--role");
  });
  it("refuses sign-ins after ten failures a minute, even with the right password (last: it blocks this address)", async () => {
    const password = await addUser("dave", "viewer");
    // This address failed twice already (above): it is refused by its tenth failure at the latest.
    let failures = 0;
    while (
      (await call("POST", "/api/session", {}, { user: "dave", password: `guess-${failures}` })).status === 401
    ) {
      failures++;
      expect(failures).toBeLessThanOrEqual(10);
    }
    expect(failures).toBeGreaterThanOrEqual(7);
    const refused = await call("POST", "/api/session", {}, { user: "dave", password });
    expect(refused.status).toBe(429);
    expect(refused.json().code).toBe("VOL_ERR_RATE_LIMITED");
  });
});
