import { type AddressInfo, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Http1Pool } from "./http1-pool.js";
import { WriteBatch } from "./write-batch.js";

/** A loopback server that keeps every request it reads (framed by Content-Length) and answers "ok". */
async function countingServer() {
  const requests: string[] = [];
  const server: Server = createServer((socket) => {
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString("latin1");
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push(buffered.subarray(0, end + 4 + length).toString("utf8"));
        buffered = buffered.subarray(end + 4 + length);
        if (!head.startsWith("GET /hang ")) socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Sends one request; resolves with the time the connection says it was written, or rejects. */
function send(pool: Http1Pool, options: { path: string; method: string; body?: string | Buffer }) {
  return new Promise<number>((resolve, reject) => {
    let writtenAt = -1;
    pool.dispatch({ ...options, headers: options.body === undefined ? undefined : ["x-kind", "body"] }, {
      onConnect: () => {},
      onPhases: (_connect: number, _tls: number, _ready: number, at: number) => {
        writtenAt = at;
      },
      onHeaders: () => true,
      onData: () => true,
      onError: reject,
      onComplete: () => resolve(writtenAt),
    } as never);
  });
}

describe("WriteBatch with Volley's HTTP/1.1 client", () => {
  it("writes the requests made in one loop turn together after it, each exactly once, bodies beside their heads", async () => {
    const { url, requests } = await countingServer();
    const writes = new WriteBatch();
    writes.active = true;
    const pool = new Http1Pool(url, {
      connections: 4,
      keepAliveTimeoutMs: 4000,
      connectTimeoutMs: 2000,
      writes,
    });
    for (let round = 0; round < 200; round++) {
      const before = performance.now();
      const written = await Promise.all([
        send(pool, { path: "/get", method: "GET" }),
        send(pool, { path: `/ascii/${round}`, method: "POST", body: "plain" }),
        send(pool, { path: `/utf8/${round}`, method: "POST", body: "é€" }),
        send(pool, { path: `/bytes/${round}`, method: "POST", body: Buffer.from([1, 2, 3]) }),
      ]);
      // One batch: one write time for all four, taken after they were made.
      expect(new Set(written).size).toBe(1);
      expect(written[0]).toBeGreaterThanOrEqual(before);
    }
    await pool.close();
    expect(requests).toHaveLength(800);
    const host = new URL(url).host;
    expect(requests.filter((r) => r === `GET /get HTTP/1.1\r\nhost: ${host}\r\n\r\n`)).toHaveLength(200);
    expect(requests).toContain(
      `POST /ascii/7 HTTP/1.1\r\nhost: ${host}\r\nx-kind: body\r\ncontent-length: 5\r\n\r\nplain`,
    );
    expect(requests).toContain(
      `POST /utf8/7 HTTP/1.1\r\nhost: ${host}\r\nx-kind: body\r\ncontent-length: 5\r\n\r\né€`,
    );
    expect(
      requests.filter((r) => r.startsWith("POST /bytes/") && r.endsWith("\u0001\u0002\u0003")),
    ).toHaveLength(200);
  });

  it("never writes a request that ended while it waited for its batch, and tells its handler so", async () => {
    const { url, requests } = await countingServer();
    const writes = new WriteBatch();
    writes.active = true;
    const pool = new Http1Pool(url, {
      connections: 2,
      keepAliveTimeoutMs: 4000,
      connectTimeoutMs: 2000,
      writes,
    });
    await send(pool, { path: "/first", method: "GET" });
    /** Dispatches `path`; its abort, and the calls its handler heard (in order). */
    const start = (path: string) => {
      const heard: string[] = [];
      let abort: (reason?: Error) => void = () => {};
      const ended = new Promise<void>((resolve) => {
        pool.dispatch({ path, method: "GET" }, {
          onConnect: (given: (reason?: Error) => void) => {
            abort = given;
          },
          onHeaders: () => true,
          onData: () => true,
          onNeverWritten: () => heard.push("never written"),
          onError: (error: Error) => {
            heard.push(error.message);
            resolve();
          },
          onComplete: () => resolve(),
        } as never);
      });
      return { heard, ended, abort: (reason: Error) => abort(reason) };
    };
    const waiting = start("/aborted");
    waiting.abort(new Error("stopped"));
    await waiting.ended;
    expect(waiting.heard).toEqual(["never written", "stopped"]);
    // Written, then aborted: a request the server holds, not one that never left.
    const written = start("/hang");
    for (let i = 0; i < 400 && !requests.some((r) => r.startsWith("GET /hang ")); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    written.abort(new Error("stopped too"));
    await written.ended;
    expect(written.heard).toEqual(["stopped too"]);
    await send(pool, { path: "/after", method: "GET" });
    await pool.close();
    expect(requests.map((r) => r.split(" ")[1])).toEqual(["/first", "/hang", "/after"]);
  });
});
