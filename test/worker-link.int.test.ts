import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { selfSignedCert } from "@volley/engine/test-support/self-signed";
import type { RunningMaster } from "@volley/master";
import { WORKER_NONCE_HEADER } from "@volley/protocol";
import { startWorker, type WorkerNode } from "@volley/worker";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { startTestMaster } from "./support/in-process.js";
import { waitFor } from "./support/processes.js";

// The worker link authenticates both ends: the token never crosses the wire, the master proves
// it knows it before a worker says anything or takes a run, the worker proves it in its hello.
const TOKEN = "worker-link-token-0123456789";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real worker whose log lines the test reads. */
function worker(masterUrl: string, options: Partial<Parameters<typeof startWorker>[0]> = {}) {
  const lines: string[] = [];
  const node: WorkerNode = startWorker(
    { masterUrl, token: TOKEN, threads: 1, logLevel: "info", ...options },
    { write: (line) => void lines.push(line) },
  );
  cleanups.push(() => node.shutdown(2000));
  const said = (text: string) => lines.filter((line) => line.includes(text)).length;
  return { node, said };
}

/** A server that answers /ws/worker like a master would, but does not know the token. */
async function fakeMaster(firstMessage: (nonce: string) => unknown) {
  const upgrades: Array<Record<string, string | string[] | undefined>> = [];
  const heard: string[] = [];
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on("connection", (socket, request) => {
    upgrades.push(request.headers);
    socket.on("message", (data) => heard.push(data.toString()));
    const first = firstMessage(String(request.headers[WORKER_NONCE_HEADER]));
    if (first) socket.send(JSON.stringify(first));
    // What a hostile master wants: a run whose script runs on the worker.
    socket.send(
      JSON.stringify({
        type: "welcome",
        workerId: "x",
        serverTime: Date.now(),
        heartbeatIntervalMs: 1000,
        redisUrl: null,
        queuePrefix: "v",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, upgrades, heard };
}

describe("worker link authentication", () => {
  it.each([
    ["says nothing", () => null, "it did not prove it knows the token"],
    [
      "has no token",
      (nonce: string) => ({ type: "auth", nonce: `${nonce}m`, proof: null }),
      "it has no token",
    ],
    [
      "guesses a proof",
      (nonce: string) => ({ type: "auth", nonce: `${nonce}m`, proof: "0".repeat(64) }),
      "it does not know the token",
    ],
  ])("a fake master that %s never gets the token, a hello or a run", async (_, first, why) => {
    const fake = await fakeMaster(first);
    const { said } = worker(fake.url);
    // The worker says why it gave up, twice (it tries again): by then it has said all it would.
    await waitFor(() => said(`cannot join the master: ${why}`) >= 2, {
      what: "two refusals",
      timeoutMs: 20_000,
    });
    expect(said("connected to the master")).toBe(0);
    for (const headers of fake.upgrades) {
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(TOKEN);
      expect(headers[WORKER_NONCE_HEADER]).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    }
    expect(fake.heard).toEqual([]);
  });

  it("a real master with the token takes the worker; one with another token is refused by it, and refuses a wrong one", async () => {
    const master = await startTestMaster({ token: TOKEN });
    cleanups.push(() => master.close());
    const good = worker(master.url, { name: "good" });
    await waitFor(() => master.services.registry.ready().some((e) => e.info.name === "good"), {
      what: "the worker with the token to be ready",
    });
    expect(good.said("connected to the master")).toBe(1);
    // A worker with another token: the master says it does not know that one (4003), and never lists it.
    const closes: number[] = [];
    const other = new WebSocket(`${master.url.replace("http", "ws")}/ws/worker`, {
      headers: { [WORKER_NONCE_HEADER]: "n".repeat(32) },
    });
    other.on("message", (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === "auth") {
        other.send(
          JSON.stringify({
            type: "hello",
            workerId: "intruder",
            name: "intruder",
            host: "h",
            threads: 1,
            cores: 1,
            version: "x",
            pid: 1,
            local: false,
            activeRunId: null,
            proof: "f".repeat(64),
          }),
        );
      }
    });
    other.on("close", (code) => closes.push(code));
    await waitFor(() => closes.length === 1, { what: "the intruder to be closed" });
    expect(closes).toEqual([4003]);
    expect(master.services.registry.list().some((w) => w.name === "intruder")).toBe(false);
    // A worker whose token is not the master's: it refuses that master (the proof is wrong).
    const wrong = await startTestMaster({ token: "another-token-entirely-9876" });
    cleanups.push(() => wrong.close());
    const stranger = worker(wrong.url, { name: "stranger" });
    await waitFor(() => stranger.said("cannot join the master: it does not know the token") >= 2, {
      what: "the stranger to refuse the master twice",
      timeoutMs: 20_000,
    });
    expect(wrong.services.registry.list()).toEqual([]);
  });

  it("closes a socket that says no hello, and one that floods the master with messages", async () => {
    const master = await startTestMaster({ token: TOKEN });
    cleanups.push(() => master.close());
    const flood = new WebSocket(`${master.url.replace("http", "ws")}/ws/worker`, {
      headers: { [WORKER_NONCE_HEADER]: "f".repeat(32) },
    });
    const floodClosed = new Promise<number>((resolve) => flood.on("close", resolve));
    await new Promise((resolve) => flood.on("open", resolve));
    for (let i = 0; i < 5000 && flood.readyState === WebSocket.OPEN; i++) {
      flood.send(JSON.stringify({ type: "clock-ping", id: i, t0: 1 }));
    }
    expect(await floodClosed).toBe(1008);
    const silent = new WebSocket(`${master.url.replace("http", "ws")}/ws/worker`, {
      headers: { [WORKER_NONCE_HEADER]: "s".repeat(32) },
    });
    const opened = Date.now();
    const code = await new Promise<number>((resolve) => silent.on("close", resolve));
    expect(code).toBe(1008);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(9000);
  });

  it("joins an https:// master by its pinned fingerprint or its CA, and refuses another certificate", async () => {
    const { cert, key } = selfSignedCert();
    const master: RunningMaster = await startTestMaster({
      token: TOKEN,
      tls: { cert: String(cert), key: String(key) },
    });
    cleanups.push(() => master.close());
    expect(master.url).toMatch(/^https:\/\//);
    const { X509Certificate } = await import("node:crypto");
    const fingerprint = new X509Certificate(cert).fingerprint256;
    worker(master.url, { name: "pinned", masterTls: { fingerprint } });
    worker(master.url, { name: "by-ca", masterTls: { ca: String(cert) } });
    await waitFor(
      () =>
        ["pinned", "by-ca"].every((name) =>
          master.services.registry.ready().some((e) => e.info.name === name),
        ),
      { what: "both TLS workers to be ready" },
    );
    // A worker pinned to another certificate, and one trusting only the system's CAs, stay out.
    const other = new X509Certificate(selfSignedCert().cert).fingerprint256;
    const pinnedElsewhere = worker(master.url, { name: "elsewhere", masterTls: { fingerprint: other } });
    await waitFor(() => pinnedElsewhere.said("its certificate does not match --master-fingerprint") >= 2, {
      what: "the worker pinned elsewhere to refuse twice",
      timeoutMs: 20_000,
    });
    const names = master.services.registry.list().map((w) => w.name);
    expect(names.sort()).toEqual(["by-ca", "pinned"]);
    expect(pinnedElsewhere.said("connected to the master")).toBe(0);
  });
});
