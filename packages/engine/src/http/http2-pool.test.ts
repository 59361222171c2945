import { createSecureServer } from "node:http2";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Server } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeOpened,
  type Heard,
  h2cServer,
  hello,
  open,
  pool,
  request,
} from "../test-support/http2-peer.js";
import { selfSignedCert } from "../test-support/self-signed.js";
import { classifyError } from "./classify-error.js";

afterEach(closeOpened);

describe("Volley's HTTP/2 pool against node's HTTP/2 server: sessions, streams, deadlines, TLS", () => {
  it("answers many streams at once over one session, no more at once than the server allows", async () => {
    const { url, seen } = await h2cServer((stream) => setTimeout(() => hello(stream), 5), {
      maxConcurrentStreams: 10,
    });
    const client = pool(url);
    const heard = await Promise.all(Array.from({ length: 100 }, () => request(client)));
    expect(heard.filter((h) => h.status === 200 && h.body.toString() === "hello")).toHaveLength(100);
    expect(seen).toMatchObject({ sessions: 1, streams: 100 });
    expect(seen.mostAtOnce).toBeLessThanOrEqual(10);
    expect(seen.mostAtOnce).toBeGreaterThan(1);
  });

  it("spreads streams over `connections` sessions while each is busy", async () => {
    const { url, seen } = await h2cServer((stream) => setTimeout(() => hello(stream), 20));
    const client = pool(url, { connections: 3 });
    // 30 users, 5 requests each in turn.
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const each: number[] = [];
        for (let i = 0; i < 5; i++) each.push((await request(client)).status);
        return each;
      }),
    );
    expect(statuses.flat()).toEqual(Array(150).fill(200));
    expect(seen).toMatchObject({ sessions: 3, streams: 150 });
    expect(client.size).toBe(3);
  });

  it("times a request out whose answer does not come", async () => {
    const { url } = await h2cServer(() => {});
    const heard = await request(pool(url), { headersTimeout: 200 });
    expect((heard.error as { code?: string }).code).toBe("UND_ERR_HEADERS_TIMEOUT");
    expect(classifyError(heard.error)).toBe("timeout");
  });

  it("fails as a connect error when nothing listens", async () => {
    const { url } = await h2cServer(hello);
    for (const item of open.splice(0)) await item.close();
    const heard = await request(pool(url));
    expect(classifyError(heard.error)).toBe("connect");
  });

  it("closes an idle session after keepAliveTimeout, and every session at close", async () => {
    const { url, seen } = await h2cServer(hello);
    const client = pool(url, { keepAliveTimeoutMs: 150 });
    await request(client);
    await expect.poll(() => seen.closedSessions, { timeout: 2000 }).toBe(1);
    // The server may hear the close before the client's own socket says it closed.
    await expect.poll(() => client.size, { timeout: 2000 }).toBe(0);
    await Promise.all([request(client), request(client)]);
    expect(seen.sessions).toBe(2);
    await client.close();
    expect(client.size).toBe(0);
    await expect.poll(() => seen.closedSessions, { timeout: 2000 }).toBe(2);
  });

  it("over TLS: ALPN h2, connect and TLS phases on the request that opened the session only", async () => {
    const server = createSecureServer({ ...selfSignedCert(), allowHTTP1: false });
    server.on("stream", hello);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const client = pool(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      server: {
        tls: { rejectUnauthorized: false },
        lookup: undefined as never,
        localAddress: undefined,
        proxy: null,
      },
    });
    const first = await request(client);
    const second = await request(client);
    expect([first.status, second.status]).toEqual([200, 200]);
    const [connectMs, tlsMs] = first.phases ?? [];
    expect(connectMs).toBeGreaterThan(0);
    expect(tlsMs).toBeGreaterThan(0);
    expect(second.phases?.slice(0, 2)).toEqual([0, 0]);
  });

  it("refuses a TLS server that does not speak HTTP/2: one without ALPN, one that offers HTTP/1.1 only", async () => {
    const bare = createTlsServer(selfSignedCert(), (socket) => socket.end("HTTP/1.1 200 OK\r\n\r\n"));
    const https = createHttpsServer(selfSignedCert(), (_req, res) => res.end("http/1.1"));
    const trustAny = {
      tls: { rejectUnauthorized: false },
      lookup: undefined as never,
      localAddress: undefined,
      proxy: null,
    };
    const heard: Heard[] = [];
    for (const server of [bare, https] as Server[]) {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
      heard.push(
        await request(
          pool(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, { server: trustAny }),
        ),
      );
    }
    expect(heard[0].error?.message).toBe("the server does not speak HTTP/2 (ALPN: none)");
    expect(classifyError(heard[0].error)).toBe("protocol");
    // Node's HTTPS server ends the handshake with an alert: no connection carried the request.
    expect(heard[1].error?.message).toMatch(/no application protocol/);
    expect(classifyError(heard[1].error)).toBe("connect");
  });
});
