import { mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestMaster } from "./support/in-process.js";
import { hold, isolatedSetup, sendJson, spawnCli, waitFor } from "./support/processes.js";

// Edges an attack run found open: unbounded durations, CR/LF in headers and multipart parts,
// connections that never finish a request.
let master: RunningMaster;
beforeAll(async () => {
  master = await startTestMaster({ requestTimeoutMs: 1500 });
});
afterAll(() => master?.close());

const base = {
  name: "edges",
  target: "http://127.0.0.1:9",
  load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
};

describe("bad input at the edge", () => {
  it.each([
    [
      { load: { executor: "constant-vus", vus: 1, duration: "3000000000h" } },
      "load.duration",
      /longer than a year/,
    ],
    [
      { requests: [{ path: "/", headers: { "x-a": "1\r\nx-injected: 2" } }] },
      "requests[0].headers.x-a",
      /CR, LF/,
    ],
    [
      { requests: [{ path: "/", headers: { "bad name": "1" } }] },
      "requests[0].headers.bad name",
      /HTTP token/,
    ],
    [
      {
        requests: [
          { path: "/", multipart: { f: { file: "a.bin", contentType: "text/plain\r\nx-evil: 1" } } },
        ],
      },
      "requests[0].multipart.f.contentType",
      /CR, LF/,
    ],
  ])("%j is a 400 naming the field", async (patch, path, message) => {
    const answer = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: { ...base, requests: [{ path: "/" }], ...patch },
    });
    expect(answer.status).toBe(400);
    const detail = answer.body.details?.find((d: { path: string }) => d.path.startsWith(path));
    expect(detail, JSON.stringify(answer.body.details)).toBeDefined();
    expect(detail?.message).toMatch(message);
  });

  it("closes a connection that sends nothing, and one whose body trickles, after the request timeout", async () => {
    const port = Number(new URL(master.url).port);
    const closedAfter = (send: (socket: ReturnType<typeof connect>) => void) =>
      new Promise<number>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => send(socket));
        const opened = Date.now();
        let timer: NodeJS.Timeout | undefined;
        socket.on("close", () => {
          clearInterval(timer);
          resolve(Date.now() - opened);
        });
        socket.on("error", () => undefined);
        socket.on("data", () => undefined);
        timer = setInterval(() => socket.writable && socket.write("x"), 200);
        if (send.length === 0) clearInterval(timer);
      });
    const silent = await closedAfter(() => undefined);
    const trickle = await closedAfter((socket) =>
      socket.write(
        "POST /api/runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n",
      ),
    );
    for (const ms of [silent, trickle]) {
      expect(ms).toBeGreaterThanOrEqual(1000);
      expect(ms).toBeLessThan(15_000);
    }
  });

  it("documents GET /api/runs/{id}/files", async () => {
    const document = await (await fetch(`${master.url}/api/openapi.json`)).json();
    expect(document.paths["/api/runs/{id}/files"]?.get).toBeDefined();
  });
});

describe("the request timeout and sockets", () => {
  it("leaves an open /ws/live socket alone however long it lasts", async () => {
    const socket = new WebSocket(`${master.url.replace("http", "ws")}/ws/live`);
    let messages = 0;
    socket.on("message", () => messages++);
    await new Promise((resolve) => socket.once("open", resolve));
    // Past twice the request timeout (timers fire in order, so the timeout's would have fired
    // first): a state message arrived, and the master still pushes to it.
    await hold(3500);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    master.services.live.publish({ type: "workers", workers: [] });
    await waitFor(() => messages >= 2, { what: "the pushed message", timeoutMs: 5000 });
    expect(messages).toBe(2);
    socket.close();
  });
});

describe("tokens kept off the command line", () => {
  it("--token-file is read (its first line), refused naming the flag when missing; --tls-cert needs --tls-key", async () => {
    const missing = spawnCli([
      "worker",
      "--master",
      "http://127.0.0.1:9",
      "--token-file",
      "/nonexistent/token",
    ]);
    expect(await missing.exited).toBe(2);
    expect(missing.output.join("")).toContain("--token-file: cannot read /nonexistent/token (ENOENT)");
    const half = spawnCli(["master", "--port", "0", "--tls-cert", "/nonexistent/cert.pem"]);
    expect(await half.exited).toBe(2);
    expect(half.output.join("")).toContain("--tls-cert and --tls-key go together");
    const file = join(mkdtempSync(join(tmpdir(), "volley-token-")), "token");
    writeFileSync(file, "file-token-0123456789\nignored second line\n");
    const setup = isolatedSetup();
    const master = spawnCli(["master", "--port", "0", "--token-file", file], {
      DATABASE_URL: setup.databaseUrl,
      VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
    });
    const url = await waitFor(() => /Volley master on (\S+)/.exec(master.output.join(""))?.[1], {
      what: "the master to start",
      failIf: () => master.child.exitCode !== null,
    });
    expect((await fetch(`${url}/api/runs`)).status).toBe(401);
    const runs = await fetch(`${url}/api/runs`, {
      headers: { authorization: "Bearer file-token-0123456789" },
    });
    expect(runs.status).toBe(200);
    master.signal("SIGTERM");
    await master.exited;
  });
});
