import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runSlice } from "../test-support/run-slice.js";
import { Http1Pool } from "./http1-pool.js";
import { NativeReads } from "./native-reads.js";

/**
 * A raw TCP server on loopback that answers each request (head and body read by content-length)
 * with whatever `answer` writes: framings, broken HTTP, closes. It counts connections and requests.
 */
async function rawServer(answer: (socket: Socket, request: string, index: number) => void) {
  const seen = { connections: 0, requests: [] as string[], open: new Set<Socket>() };
  const server: Server = createServer((socket) => {
    seen.connections++;
    seen.open.add(socket);
    socket.on("close", () => seen.open.delete(socket));
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = buffered.slice(0, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        seen.requests.push(request);
        answer(socket, request, seen.requests.length - 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { url, seen };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const scenario = (
  target: string,
  requests: unknown[],
  iterations = 3,
  http: Record<string, unknown> = {},
) => ({
  name: "raw",
  target,
  load: { executor: "per-vu-iterations", vus: 1, iterations },
  requests,
  http: { client: "volley", ...http },
});

// Every case both ways: plain-TCP reads a batch at a time (NativeReads, where the addon is built)
// and through node:net (where it is not, and for TLS).
describe.each([
  ["reads a batch at a time", true],
  ["reads through node:net", false],
])("Volley's HTTP/1.1 client against raw servers, %s", (_, native) => {
  beforeAll(() => {
    NativeReads.enabled = native;
  });
  afterAll(() => {
    NativeReads.enabled = true;
  });

  it("reads chunked answers with trailers on one kept-alive socket, and writes one request per write", async () => {
    const { url, seen } = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n");
      setTimeout(() => socket.write("0\r\nX-Sum: 5\r\n\r\n"), 5);
    });
    const { aggregate } = await runSlice(
      scenario(url, [
        { name: "c", method: "POST", path: "/c?q={{iter}}", body: "ab", expect: { body: "hello" } },
      ]),
    );
    expect(aggregate.get("c")).toMatchObject({ requests: 3, failures: 0 });
    expect(seen.connections).toBe(1);
    expect(seen.requests[2]).toBe(
      "POST /c?q=2 HTTP/1.1\r\nhost: " + new URL(url).host + "\r\ncontent-length: 2\r\n\r\nab",
    );
  });

  it("counts the bytes that went on the wire, head and body, as the server received them", async () => {
    const { url, seen } = await rawServer((socket) =>
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    );
    const { aggregate } = await runSlice(
      scenario(url, [
        { name: "get", path: "/hello" },
        {
          name: "post",
          method: "POST",
          path: "/p/{{iter}}",
          headers: { "x-a": "é{{vu}}" },
          json: { n: "{{iter}}" },
        },
      ]),
    );
    const received = (prefix: string) =>
      seen.requests.filter((r) => r.startsWith(prefix)).reduce((sum, r) => sum + r.length, 0);
    // "GET /hello HTTP/1.1\r\nhost: 127.0.0.1:PORT\r\n\r\n", three times.
    expect(aggregate.get("get")?.bytesOut).toBe(received("GET "));
    expect(aggregate.get("get")?.bytesOut).toBe(3 * (31 + new URL(url).host.length));
    expect(aggregate.get("post")?.bytesOut).toBe(received("POST "));
  });

  it("a new socket after Connection: close and after an HTTP/1.0 body read until close", async () => {
    const close = await rawServer((socket) =>
      socket.end("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"),
    );
    const first = await runSlice(scenario(close.url, [{ name: "a", path: "/" }]));
    expect(first.aggregate.get("a")).toMatchObject({ requests: 3, failures: 0 });
    expect(close.seen.connections).toBe(3);
    const old = await rawServer((socket) => socket.end("HTTP/1.0 200 OK\r\n\r\nuntil close"));
    const second = await runSlice(
      scenario(old.url, [{ name: "b", path: "/", expect: { body: "until close" } }]),
    );
    expect(second.aggregate.get("b")).toMatchObject({ requests: 3, failures: 0 });
    expect(old.seen.connections).toBe(3);
  });

  it("a request's latency ends at the read that completes its answer, or at the close that ends it", async () => {
    // The head at once, the body 60 ms later: the end is the body's read, not the first byte's.
    const late = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n");
      setTimeout(() => socket.write("ok"), 60);
    });
    const first = await runSlice(scenario(late.url, [{ name: "late", path: "/" }]));
    expect(first.aggregate.get("late")?.latencySummary().min).toBeGreaterThanOrEqual(55);
    // Every byte at once, the close 60 ms later: a body read until close ends with the close.
    const closing = await rawServer((socket) => {
      socket.write("HTTP/1.0 200 OK\r\n\r\nuntil close");
      setTimeout(() => socket.end(), 60);
    });
    const second = await runSlice(scenario(closing.url, [{ name: "closing", path: "/" }]));
    expect(second.aggregate.get("closing")).toMatchObject({ requests: 3, failures: 0 });
    expect(second.aggregate.get("closing")?.latencySummary().min).toBeGreaterThanOrEqual(55);
  });

  it("gives a connection back before its handler hears onComplete: a request sent from onComplete reuses it", async () => {
    const { url, seen } = await rawServer((socket) =>
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    );
    // Room for four sockets: a connection still taken at onComplete would make the next request open one.
    const pool = new Http1Pool(url, { connections: 4, keepAliveTimeoutMs: 4000, connectTimeoutMs: 2000 });
    expect(pool.releasesBeforeComplete).toBe(true);
    let left = 5;
    await new Promise<void>((resolve, reject) => {
      const handler = {
        onConnect: () => {},
        onHeaders: () => true,
        onData: () => true,
        onError: reject,
        onComplete: () => {
          if (--left === 0) resolve();
          else pool.dispatch({ path: "/", method: "GET" }, handler);
        },
      };
      pool.dispatch({ path: "/", method: "GET" }, handler);
    });
    expect(seen.requests).toHaveLength(5);
    expect(seen.connections).toBe(1);
    await pool.close();
  });

  it("what is not HTTP is a protocol error; the socket is dropped and the VU goes on", async () => {
    const { url, seen } = await rawServer((socket, _request, index) => {
      if (index % 2 === 0) socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n");
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const { aggregate } = await runSlice(scenario(url, [{ name: "p", path: "/" }], 4));
    expect(aggregate.get("p")?.requests).toBe(4);
    expect(aggregate.get("p")?.errors.list()).toEqual([
      expect.objectContaining({
        kind: "protocol",
        count: 2,
        message: expect.stringContaining("not an HTTP/1.x status line"),
      }),
    ]);
    // Each broken answer cost its socket: requests 1 and 3 came on new ones.
    expect(seen.connections).toBe(3);
  });

  it("a kept-alive socket the server closed is replaced without a failed request", async () => {
    const { url, seen } = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      // The server drops idle sockets at once, as a short keep-alive timeout does under load.
      setTimeout(() => socket.destroy(), 20);
    });
    const { aggregate } = await runSlice({
      ...scenario(url, [{ name: "k", path: "/" }], 3),
      thinkTime: "60ms",
    });
    expect(aggregate.get("k")).toMatchObject({ requests: 3, failures: 0 });
    expect(seen.connections).toBe(3);
  });

  it("follows the server's Keep-Alive timeout hint when it is shorter", async () => {
    const { url, seen } = await rawServer((socket) =>
      socket.write("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok"),
    );
    // The hint (1 s, less the one-second margin) closes each socket before the next iteration.
    await runSlice({
      ...scenario(url, [{ name: "h", path: "/" }], 2, { keepAliveTimeout: "10s" }),
      thinkTime: "300ms",
    });
    expect(seen.connections).toBe(2);
  });

  it("HEAD answers have no body whatever their length says; 1xx answers are skipped", async () => {
    const { url } = await rawServer((socket, request) => {
      if (request.startsWith("HEAD")) socket.write("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n");
      else socket.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    });
    const { aggregate } = await runSlice(
      scenario(url, [
        { name: "head", method: "HEAD", path: "/" },
        { name: "post", method: "POST", path: "/", body: "x", expect: { status: 201 } },
      ]),
    );
    expect(aggregate.get("head")).toMatchObject({ requests: 3, failures: 0 });
    expect(aggregate.get("post")).toMatchObject({ requests: 3, failures: 0, statusCodes: { "201": 3 } });
  });

  it("refuses to write a header value a capture filled with a line break", async () => {
    const { url, seen } = await rawServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nX-Next: a\r\nContent-Length: 14\r\n\r\n{"v":"a\\r\\nb"}'),
    );
    const { aggregate } = await runSlice(
      scenario(
        url,
        [
          { name: "get", path: "/", capture: { v: "json.v" } },
          { name: "use", path: "/use", headers: { "x-v": "{{v}}" } },
        ],
        1,
      ),
    );
    expect(aggregate.get("use")?.errors.list()).toEqual([
      expect.objectContaining({
        kind: "other",
        message: expect.stringContaining("invalid value of header x-v"),
      }),
    ]);
    expect(seen.requests).toHaveLength(1);
  });

  it("keeps a captured body whole while other sockets' reads reuse the shared read buffer", async () => {
    // Each /get answer comes in two writes, 5 ms apart, with ~100 KB between its id and its end:
    // the VU keeps the first part while other connections read into the same buffer.
    let served = 0;
    const { url, seen } = await rawServer((socket, request) => {
      if (!request.startsWith("GET /get")) {
        socket.write("HTTP/1.1 204 No Content\r\n\r\n");
        return;
      }
      const body = JSON.stringify({ v: `id${served++}`, pad: "x".repeat(100_000) });
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`);
      setTimeout(() => socket.write(body.slice(20)), 5);
    });
    const { aggregate } = await runSlice({
      ...scenario(url, [
        { name: "get", path: "/get", capture: { v: "json.v" } },
        { name: "use", path: "/use/{{v}}" },
      ]),
      load: { executor: "per-vu-iterations", vus: 4, iterations: 3 },
    });
    expect(aggregate.get("get")).toMatchObject({ requests: 12, failures: 0 });
    const used = seen.requests.filter((r) => r.startsWith("GET /use/")).map((r) => r.split(" ")[1]);
    expect(used.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `/use/id${i}`).sort());
  });
});
