import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster } from "./support/in-process.js";
import { rawRequest, wsUpgradeStatus } from "./support/raw-http.js";

const TOKEN = "access-test-token-123";
let loopback: RunningMaster;
let exposed: RunningMaster;
let exposedUrl: string;

beforeAll(async () => {
  loopback = await startTestMaster({ token: TOKEN });
  exposed = await startTestMaster({ token: TOKEN, host: "0.0.0.0" });
  exposedUrl = `http://127.0.0.1:${new URL(exposed.url).port}`;
});
afterAll(async () => {
  await loopback?.close();
  await exposed?.close();
});

// Every spelling of a guarded route: the router decodes them, so the guard must too.
const GUARDED = [
  ["GET", "/api/runs"],
  ["GET", "/%61pi/runs"],
  ["GET", "/%61%70%69/runs"],
  ["GET", "/%41pi/runs"],
  ["GET", "/api/%72uns"],
  ["GET", "/api%2Fruns"],
  ["GET", "/api%2fruns"],
  ["GET", "//api/runs"],
  ["GET", "/api//runs"],
  ["GET", "/x/../api/runs"],
  ["GET", "/./api/runs"],
  ["GET", "/api/runs;x=1"],
  ["GET", "/api/runs?x=/api/health"],
  ["GET", "/API/runs"],
  ["GET", "/%6detrics"],
  ["GET", "/metrics"],
  ["GET", "/api/workers"],
  ["POST", "/%61pi/workers/local"],
  ["POST", "/api/workers/local"],
  ["POST", "/%61pi/runs"],
  ["DELETE", "/api/workers/x"],
  ["GET", "/api/openapi.json"],
  ["GET", "/api/trends?name=x"],
  ["GET", "/api/runs/x/scripts"],
  ["POST", "/api/runs/x/pin"],
  ["PATCH", "/api/runs/x/load"],
  ["POST", "/api/runs/x/rebalance"],
  ["PATCH", "/%61pi/runs/x/load"],
  ["GET", "/api/runs/x/summary?from=0&to=1"],
  ["GET", "/api/runs/x/distribution"],
  ["GET", "/api/runs/x/heatmap"],
  ["GET", "/api/runs/x/report.html"],
  ["GET", "/api/audit"],
  ["GET", "/%61pi/audit"],
  ["GET", "/api/users"],
  ["POST", "/api/users"],
  ["POST", "/api/%75sers"],
  ["PATCH", "/api/users/x"],
  ["DELETE", "/api/users/x"],
  ["GET", "/api/tokens"],
  ["POST", "/api/tokens"],
  ["DELETE", "/api/tokens/x"],
  ["POST", "/api/session/password"],
] as const;

const wsStatus = wsUpgradeStatus;

describe("access: deny by default, decided on the matched route", () => {
  it.each([
    ["loopback", () => loopback.url],
    ["beyond loopback", () => exposedUrl],
  ])("%s master with a token: no spelling of a guarded route answers without it", async (_, url) => {
    for (const [method, path] of GUARDED) {
      const body = method === "POST" || method === "PATCH" ? "{}" : undefined;
      const answer = await rawRequest(url(), method, path, {}, body);
      expect(answer.status, `${method} ${path}: ${answer.body}`).not.toBe(200);
      expect(answer.status, `${method} ${path}`).not.toBe(201);
      expect([400, 401, 404], `${method} ${path}: ${answer.status}`).toContain(answer.status);
      if (answer.status !== 401) {
        // What is not refused for the token reached no route (or a public file): never data.
        expect(answer.body, `${method} ${path}`).not.toContain('"runs"');
      }
      expect(answer.json(), `${method} ${path}`).toHaveProperty("code");
    }
    // The real route with the token answers.
    const ok = await rawRequest(url(), "GET", "/%61pi/runs", { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.json()).toHaveProperty("runs");
    // Public: health, the dashboard's bootstrap config, login.
    expect((await rawRequest(url(), "GET", "/api/health")).status).toBe(200);
    const live = await rawRequest(url(), "GET", "/api/health/live");
    expect(live.status).toBe(200);
    expect(live.json()).toEqual({ ok: true }); // liveness says nothing else
    expect((await rawRequest(url(), "GET", "/%61pi/config")).status).toBe(200);
    // The live feed, however spelled, needs the token; the worker socket too.
    for (const path of ["/ws/live", "/ws/%6cive", "/%77s/live"]) {
      expect(await wsStatus(url(), path), path).toBe(401);
    }
    expect(await wsStatus(url(), "/ws/live", { authorization: `Bearer ${TOKEN}` })).toBe(101);
    expect(await wsStatus(url(), "/ws/%77orker")).toBe(401);
    expect(await wsStatus(url(), "/ws/worker", { authorization: `Bearer ${TOKEN}` })).toBe(101);
  });

  it("a loopback master refuses foreign Host names (DNS rebinding) and cross-origin writes", async () => {
    const host = new URL(loopback.url).host;
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const h of [host, `localhost:${new URL(loopback.url).port}`, "127.0.0.2", "[::1]:1"]) {
      expect((await rawRequest(loopback.url, "GET", "/api/health", { host: h })).status, h).toBe(200);
    }
    for (const h of [
      "evil.example",
      `evil.example:${new URL(loopback.url).port}`,
      "127.evil.example",
      "127.0.0.1.nip.example",
    ]) {
      const answer = await rawRequest(loopback.url, "GET", "/api/health", { host: h });
      expect(answer.status, h).toBe(403);
      expect(answer.json().code).toBe("VOL_ERR_FORBIDDEN");
    }
    // A page on another origin cannot stop a run or start workers, even with the cookie or token.
    for (const origin of ["http://evil.example", "null", `http://${host}.evil.example`]) {
      const answer = await rawRequest(loopback.url, "POST", "/api/runs/abc/stop", { ...auth, origin }, "{}");
      expect(answer.status, origin).toBe(403);
    }
    const crossSite = await rawRequest(
      loopback.url,
      "POST",
      "/api/workers/local",
      { ...auth, "sec-fetch-site": "cross-site" },
      "{}",
    );
    expect(crossSite.status).toBe(403);
    expect(await wsStatus(loopback.url, "/ws/live", { ...auth, origin: "http://evil.example" })).toBe(403);
    // The dashboard's own origin, and tools that send no Origin, pass.
    const own = await rawRequest(
      loopback.url,
      "POST",
      "/api/runs/abc/stop",
      { ...auth, origin: `http://${host}` },
      "{}",
    );
    expect(own.status).toBe(404);
    expect((await rawRequest(loopback.url, "POST", "/api/runs/abc/stop", auth, "{}")).status).toBe(404);
  });

  it("beyond loopback any Host is answered unless --allowed-hosts lists them", async () => {
    expect((await rawRequest(exposedUrl, "GET", "/api/health", { host: "volley-master:8089" })).status).toBe(
      200,
    );
    const strict = await startTestMaster({
      token: TOKEN,
      host: "0.0.0.0",
      allowedHosts: ["volley.internal"],
    });
    try {
      const url = `http://127.0.0.1:${new URL(strict.url).port}`;
      expect((await rawRequest(url, "GET", "/api/health", { host: "volley.internal:80" })).status).toBe(200);
      expect((await rawRequest(url, "GET", "/api/health", { host: "other.internal" })).status).toBe(403);
    } finally {
      await strict.close();
    }
  });

  it("errors raised before routing keep the documented shape", async () => {
    const answer = await rawRequest(loopback.url, "GET", "/api/runs/%E0%A4%A");
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: "VOL_ERR_VALIDATION" });
    expect(answer.json()).toHaveProperty("error");
  });
});
