import type { RunningMaster } from "@volley/master";
import { NONCE_RE, type RunDetail, WORKER_NONCE_HEADER, WORKER_TOKEN_ID_HEADER } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { waitFor, waitForRunEnd } from "./support/processes.js";
import { rawRequest, wsUpgradeStatus } from "./support/raw-http.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Worker join tokens: made by an admin, separate from user tokens, proved inside the socket
// like the master's token (the secret never crosses the wire), and revoked at once: the
// workers that joined with one are disconnected and cannot come back.
const TOKEN = "worker-tokens-test-token-123";
let master: RunningMaster;
let target: TargetServer;
let url: string;
const nodes: WorkerNode[] = [];

const admin = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const adminRead = { authorization: `Bearer ${TOKEN}` };
const nonce = "n".repeat(32);

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ token: TOKEN, host: "0.0.0.0" });
  url = `http://127.0.0.1:${new URL(master.url).port}`;
  expect(NONCE_RE.test(nonce)).toBe(true);
});
afterAll(async () => {
  for (const node of nodes) await node.shutdown(2000);
  await master?.close();
  await target?.close();
});

async function joinToken(name: string): Promise<{ id: string; token: string }> {
  const made = await rawRequest(url, "POST", "/api/worker-tokens", admin, JSON.stringify({ name }));
  expect(made.status, made.body).toBe(201);
  return made.json<{ id: string; token: string }>();
}

describe("worker join tokens", () => {
  it("let a worker join and run exactly, without the master's token", async () => {
    const { id, token } = await joinToken("rack-a");
    expect(token).toMatch(new RegExp(`^vol_wjt_${id.replace(/[-_]/g, "\\$&")}\\.`));
    nodes.push(await startTestWorker(master, { name: "joined-a", token }));
    const created = await rawRequest(
      url,
      "POST",
      "/api/runs",
      admin,
      JSON.stringify({
        scenario: {
          name: "join-token-run",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 50 },
          requests: [{ path: "/hello" }],
        },
      }),
    );
    expect(created.status, created.body).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.json<{ id: string }>().id, 30_000, TOKEN);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(100);
    expect(target.counts.get("/hello")).toBe(100);
    const listed = await rawRequest(url, "GET", "/api/worker-tokens", adminRead);
    const row = listed.json<Array<{ id: string; lastUsedAt: string | null }>>().find((t) => t.id === id);
    expect(row?.lastUsedAt).not.toBeNull();
    expect(listed.body).not.toContain(token);
  });

  it("refuses an unknown join token before the upgrade, and a wrong secret inside the socket", async () => {
    const unknown = await wsUpgradeStatus(url, "/ws/worker", {
      [WORKER_NONCE_HEADER]: nonce,
      [WORKER_TOKEN_ID_HEADER]: "AAAAAAAAAAAA",
    });
    expect(unknown).toBe(401);
    const { id } = await joinToken("rack-b");
    // The right id with a wrong secret passes the door but not the proof in hello.
    const socket = new WebSocket(`${url.replace("http", "ws")}/ws/worker`, {
      headers: { [WORKER_NONCE_HEADER]: nonce, [WORKER_TOKEN_ID_HEADER]: id },
    });
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.once("message", () =>
      socket.send(
        JSON.stringify({
          type: "hello",
          workerId: "forged",
          name: "forged",
          host: "fake",
          threads: 1,
          cores: 1,
          version: "test",
          pid: 0,
          local: false,
          activeRunId: null,
          proof: "0".repeat(64),
        }),
      ),
    );
    expect(await closed).toBe(4003);
    expect(master.services.registry.list().some((w) => w.name === "forged")).toBe(false);
  });

  it("disconnects the workers of a revoked token at once, and refuses them after", async () => {
    const { id, token } = await joinToken("rack-c");
    const node = await startTestWorker(master, { name: "joined-c", token });
    nodes.push(node);
    const entry = () => master.services.registry.list().find((w) => w.name === "joined-c");
    const workerId = entry()?.id ?? "";
    // Another worker on the master's token stays.
    nodes.push(await startTestWorker(master, { name: "on-master-token", token: TOKEN }));
    const revoked = await rawRequest(url, "DELETE", `/api/worker-tokens/${id}`, adminRead);
    expect(revoked.status).toBe(204);
    await waitFor(() => master.services.registry.get(workerId)?.channel === null, {
      what: "the revoked token's worker to be disconnected",
      timeoutMs: 5000,
    });
    expect(
      await wsUpgradeStatus(url, "/ws/worker", {
        [WORKER_NONCE_HEADER]: nonce,
        [WORKER_TOKEN_ID_HEADER]: id,
      }),
    ).toBe(401);
    expect(master.services.registry.ready().map((w) => w.info.name)).toContain("on-master-token");
    const audit = await rawRequest(url, "GET", "/api/audit?action=worker-token.", adminRead);
    const actions = audit.json<Array<{ action: string; target: string }>>();
    expect(actions).toContainEqual(expect.objectContaining({ action: "worker-token.revoke", target: id }));
    expect(actions).toContainEqual(expect.objectContaining({ action: "worker-token.create", target: id }));
  });

  it("is for admins only, and never a user's token", async () => {
    const made = await rawRequest(
      url,
      "POST",
      "/api/users",
      admin,
      JSON.stringify({ name: "tess", role: "tester" }),
    );
    const password = made.json<{ password: string }>().password;
    const signIn = await rawRequest(
      url,
      "POST",
      "/api/session",
      { "content-type": "application/json" },
      JSON.stringify({ user: "tess", password }),
    );
    const cookie = String(signIn.headers["set-cookie"]).split(";")[0];
    expect((await rawRequest(url, "GET", "/api/worker-tokens", { cookie })).status).toBe(403);
    const { token } = await joinToken("not-a-user-token");
    expect((await rawRequest(url, "GET", "/api/runs", { authorization: `Bearer ${token}` })).status).toBe(
      401,
    );
  });
});
