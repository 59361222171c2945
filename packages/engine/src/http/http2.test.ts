import { createSecureServer, createServer, type Http2SecureServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSlice } from "../test-support/run-slice.js";
import { selfSignedCert } from "../test-support/self-signed.js";

let server: Http2SecureServer;
let url: string;
const seen = { versions: new Map<string, number>(), sessions: 0, bodies: [] as string[] };

// A node HTTP/2 server over TLS (ALPN h2 only: an HTTP/1.1 client cannot talk to it).
beforeAll(async () => {
  server = createSecureServer({ ...selfSignedCert(), allowHTTP1: false }, (req, res) => {
    seen.versions.set(req.httpVersion, (seen.versions.get(req.httpVersion) ?? 0) + 1);
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (body) seen.bodies.push(body);
      res.setHeader("x-token", "h2-token");
      res.end(req.url === "/json" ? '{"id":7}' : "hello h2");
    });
  });
  server.on("session", () => {
    seen.sessions++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("HTTP/2 over TLS", () => {
  it("multiplexes the VUs over one session; exact counts, captures and expectations as on HTTP/1.1", async () => {
    const { aggregate } = await runSlice({
      name: "h2",
      target: url,
      load: { executor: "per-vu-iterations", vus: 20, iterations: 10 },
      http: { version: 2, insecureTls: true },
      requests: [
        { name: "json", path: "/json", capture: { id: "json.id", token: "header.x-token" } },
        {
          name: "post",
          method: "POST",
          path: "/p",
          body: "{{id}}-{{token}}",
          expect: { status: 200, body: "hello" },
        },
      ],
    });
    expect(aggregate.get("json")).toMatchObject({ requests: 200, failures: 0 });
    expect(aggregate.get("post")).toMatchObject({ requests: 200, failures: 0 });
    expect(seen.versions).toEqual(new Map([["2.0", 400]]));
    expect(seen.sessions).toBe(1);
    expect(new Set(seen.bodies)).toEqual(new Set(["7-h2-token"]));
  });

  it("is refused for a cleartext target, naming the field", async () => {
    await expect(
      runSlice({
        name: "h2c",
        target: "http://127.0.0.1:1",
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        http: { version: 2 },
        requests: [{ path: "/" }],
      }),
    ).rejects.toThrow(
      'target: HTTP/2 (version 2) runs over TLS: use https://, or http.version "2c" for HTTP/2 over plain TCP',
    );
  });
});

describe("h2c: HTTP/2 over plain TCP (prior knowledge)", () => {
  let plain: Http2Server;
  let plainUrl: string;
  const counts = { versions: new Map<string, number>(), sessions: 0, delays: [] as number[] };
  beforeAll(async () => {
    // A node h2c server: HTTP/2 frames from the first byte, no TLS, no HTTP/1.1 fallback.
    plain = createServer((req, res) => {
      counts.versions.set(req.httpVersion, (counts.versions.get(req.httpVersion) ?? 0) + 1);
      const ms = Number(new URL(req.url ?? "/", "http://x").searchParams.get("ms") ?? 0);
      setTimeout(() => res.end(`h2c ${req.url}`), ms);
    });
    plain.on("session", () => {
      counts.sessions++;
    });
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => plain.close(resolve)));

  it("counts exactly what the server answered, multiplexed over one session, timed as the server delays", async () => {
    const { aggregate } = await runSlice({
      name: "h2c",
      target: plainUrl,
      load: { executor: "per-vu-iterations", vus: 10, iterations: 5 },
      http: { version: "2c" },
      requests: [
        { name: "fast", path: "/fast", expect: { status: 200, body: "h2c /fast" } },
        { name: "slow", path: "/slow?ms=50" },
      ],
    });
    expect(aggregate.get("fast")).toMatchObject({ requests: 50, failures: 0 });
    expect(aggregate.get("slow")).toMatchObject({ requests: 50, failures: 0 });
    expect(counts.versions).toEqual(new Map([["2.0", 100]]));
    expect(counts.sessions).toBe(1);
    const slow = aggregate.get("slow");
    expect((slow?.percentileUs(50) ?? 0) / 1000).toBeGreaterThanOrEqual(49);
    expect((slow?.percentileUs(50) ?? 0) / 1000).toBeLessThan(150);
  });

  it("is refused for a TLS target, naming the field", async () => {
    await expect(
      runSlice({
        name: "h2c-tls",
        target: "https://127.0.0.1:1",
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        http: { version: "2c" },
        requests: [{ path: "/" }],
      }),
    ).rejects.toThrow('target: h2c (version "2c") is HTTP/2 over plain TCP: use http://');
  });
});
