import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, waitFor } from "./support/processes.js";

// Who may talk to a master: the worker socket's answers to bad messages, tokens for workers and
// the API, and retiring a worker for good.
let master: RunningMaster;

beforeAll(async () => {
  master = await startTestMaster();
});
afterAll(async () => {
  await master?.close();
});

describe("worker socket", () => {
  const connect = () =>
    new Promise<{ socket: WebSocket; messages: Array<Record<string, unknown>> }>((resolve, reject) => {
      const socket = new WebSocket(`${master.url.replace("http", "ws")}/ws/worker`);
      const messages: Array<Record<string, unknown>> = [];
      socket.on("message", (data) => messages.push(JSON.parse(data.toString())));
      socket.on("open", () => resolve({ socket, messages }));
      socket.on("error", reject);
    });

  it("answers malformed, unknown and premature messages with an error, and stays up", async () => {
    const { socket, messages } = await connect();
    socket.send("not json");
    socket.send(JSON.stringify({ type: "teleport" }));
    socket.send(
      JSON.stringify({
        type: "heartbeat",
        state: "ready",
        runId: null,
        vus: 0,
        cpu: 0,
        machineCpu: 0,
        memoryMb: 0,
        eventLoopDelayMs: 0,
        sentAt: 0,
      }),
    );
    socket.send(JSON.stringify({ type: "hello", workerId: "x" }));
    await waitFor(() => messages.length >= 4, { what: "four error answers" });
    expect(messages.map((m) => m.code)).toEqual(Array(4).fill("VOL_ERR_BAD_MESSAGE"));
    expect(messages[0].message).toBe("the message is not JSON");
    expect(messages[2].message).toContain('"heartbeat" before "hello"');
    expect(messages[3].message).toContain("name: ");
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it("closes a socket that sends an oversized message; the master keeps working", async () => {
    const { socket } = await connect();
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.send("x".repeat(2 * 1024 * 1024));
    expect(await closed).toBe(1009);
    expect((await getJson<{ ok: boolean }>(`${master.url}/api/health`)).ok).toBe(true);
  });
});

describe("tokens", () => {
  it("a master beyond loopback refuses to start without a token", async () => {
    await expect(startTestMaster({ host: "0.0.0.0" })).rejects.toThrow(/without a token/);
  });

  it("with a token: workers need it (401 before the upgrade), the API needs it off loopback", async () => {
    const token = "s3cret-token-for-tests";
    const secured = await startTestMaster({ host: "0.0.0.0", token });
    try {
      const url = secured.url.replace("0.0.0.0", "127.0.0.1");
      const refused = await new Promise<number>((resolve) => {
        const socket = new WebSocket(`${url.replace("http", "ws")}/ws/worker`, {
          headers: { authorization: "Bearer wrong-token-123" },
        });
        socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        socket.on("open", () => resolve(101));
      });
      expect(refused).toBe(401);
      expect((await fetch(`${url}/api/workers`)).status).toBe(401);
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
      expect(
        (await fetch(`${url}/api/workers`, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
      const login = await sendJson("POST", `${url}/api/login`, { token: "wrong" });
      expect(login.status).toBe(401);
      const ok = await fetch(`${url}/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      const cookie = ok.headers.get("set-cookie") ?? "";
      expect(cookie).toContain("HttpOnly");
      expect((await fetch(`${url}/api/runs`, { headers: { cookie: cookie.split(";")[0] } })).status).toBe(
        200,
      );
      const node = await startTestWorker({ ...secured, url } as RunningMaster, { name: "tokened", token });
      await node.shutdown(1000);
    } finally {
      await secured.close();
    }
  });

  it("retiring a ready worker disconnects it for good", async () => {
    const extra = await startTestWorker(master, { name: "to-retire" });
    const id = master.services.registry.list().find((w) => w.name === "to-retire")?.id;
    expect((await sendJson("DELETE", `${master.url}/api/workers/${id}`)).status).toBe(204);
    // The worker stopped itself (it cannot come back), and the master forgot it.
    await extra.whenStopped();
    await waitFor(() => !master.services.registry.list().some((w) => w.name === "to-retire"), {
      what: "the retired worker to leave the list",
    });
  });
});
