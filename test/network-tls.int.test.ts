import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { cliSandbox } from "./support/cli-sandbox.js";
import { startTestDns } from "./support/dns-server.js";
import { startForwardProxy, type TestProxy } from "./support/forward-proxy.js";
import { type GrpcTestServer, startGrpcServer, TEST_PROTOS } from "./support/grpc-server.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { makeTestPki, type TestPki } from "./support/test-pki.js";

// http.tls, http.origins, http.hosts and http.dns against servers on 127.0.0.2/127.0.0.3 that
// only a client with the private CA's certificate may talk to, and that are reachable under their
// test names only through http.hosts: what each server saw (the client certificate's name, the
// Host header, SNI) is counted and set against the report.
let fleet: TestFleet;
let master: RunningMaster;
let pki: TestPki;
const servers: Array<{ close(): unknown }> = [];

/** What an mTLS server saw of each request. */
interface Seen {
  cn: string;
  host: string;
  servername: string;
  version: string;
  path: string;
}
let https1: { port: number; seen: Seen[]; wsMessages: number };
let https2: { port: number; seen: Seen[] };
let grpcServer: GrpcTestServer;

const base64 = (b: Buffer) => b.toString("base64");
let CERTS: Record<string, string>;

function seenOf(req: {
  socket: unknown;
  headers: Record<string, unknown>;
  httpVersion: string;
  url?: string;
}): Seen {
  const socket = req.socket as TLSSocket;
  return {
    cn: String(socket.getPeerCertificate().subject?.CN ?? ""),
    host: String(req.headers[":authority"] ?? req.headers.host ?? ""),
    servername: String(socket.servername ?? ""),
    version: req.httpVersion,
    path: req.url ?? "",
  };
}

beforeAll(async () => {
  pki = makeTestPki(["api.volley.test", "h2.volley.test", "grpc.volley.test", "127.0.0.2"]);
  CERTS = {
    "certs/ca.pem": base64(pki.caCert),
    "certs/client.pem": base64(pki.clientCert),
    "certs/client.key": base64(pki.clientKey),
    "certs/client.p12": base64(pki.clientPfx),
    "certs/stray.key": base64(pki.strayKey),
    "certs/not-a-cert.pem": base64(Buffer.from("hello\n")),
    "certs/broken-ca.pem": base64(
      Buffer.concat([
        pki.caCert,
        Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
      ]),
    ),
  };
  const mtls = {
    key: pki.serverKey,
    cert: pki.serverCert,
    ca: pki.caCert,
    requestCert: true,
    rejectUnauthorized: true,
  };
  // HTTP/1.1 and WebSocket on 127.0.0.2.
  const seen1: Seen[] = [];
  const server1 = createHttpsServer(mtls, (req, res) => {
    seen1.push(seenOf(req));
    res.writeHead(200, { "content-length": 2 }).end("ok");
  });
  https1 = { port: 0, seen: seen1, wsMessages: 0 };
  const wss = new WebSocketServer({ server: server1, perMessageDeflate: false });
  wss.on("connection", (ws, req) => {
    seen1.push({ ...seenOf(req), path: `ws ${req.url}` });
    ws.on("message", (data) => {
      https1.wsMessages++;
      ws.send(`echo: ${data}`);
    });
  });
  await new Promise<void>((resolve) => server1.listen(0, "127.0.0.2", resolve));
  https1.port = (server1.address() as AddressInfo).port;
  servers.push({
    close: () => {
      wss.close();
      server1.closeAllConnections();
      server1.close();
    },
  });
  // HTTP/2 only, on 127.0.0.3.
  const seen2: Seen[] = [];
  const server2: Http2SecureServer = createSecureServer({ ...mtls, allowHTTP1: false });
  server2.on("request", (req, res) => {
    seen2.push(seenOf(req as never));
    res.writeHead(200, { "content-length": 2 }).end("ok");
  });
  await new Promise<void>((resolve) => server2.listen(0, "127.0.0.3", resolve));
  https2 = { port: (server2.address() as AddressInfo).port, seen: seen2 };
  servers.push({ close: () => server2.close() });
  grpcServer = await startGrpcServer(
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert },
    "127.0.0.2",
  );
  servers.push(grpcServer);
  fleet = await startTestFleet({ workers: 2, threads: 1 });
  ({ master } = fleet);
});
afterAll(async () => {
  await fleet?.close();
  for (const server of servers) await server.close();
});

async function create(scenario: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return sendJson("POST", `${master.url}/api/runs`, {
    attachments: CERTS,
    ...extra,
    scenario: { name: "network", ...scenario },
  });
}

async function run(
  scenario: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<RunDetail> {
  const created = await create(scenario, extra);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
}

const PROTOS = {
  "protos/greeter.proto": base64(readFileSync(join(TEST_PROTOS, "greeter.proto"))),
  "protos/common/stamp.proto": base64(readFileSync(join(TEST_PROTOS, "common/stamp.proto"))),
};
const CLIENT_PEM = { cert: "certs/client.pem", key: "certs/client.key", ca: "certs/ca.pem" };

describe("http.tls and http.hosts", () => {
  it("HTTP/1.1 and WebSocket with a client certificate, through a hosts wildcard: the server saw the certificate, the name in Host and SNI", async () => {
    https1.seen.length = 0;
    https1.wsMessages = 0;
    const origin = `api.volley.test:${https1.port}`;
    const report = await run({
      target: `https://${origin}`,
      load: { executor: "per-vu-iterations", vus: 4, iterations: 5 },
      http: { tls: CLIENT_PEM, hosts: { "*.volley.test": "127.0.0.2" } },
      requests: [
        { name: "hello", path: "/hello" },
        {
          name: "chat",
          ws: `wss://${origin}/chat`,
          steps: [{ send: "hi" }, { expect: "echo: hi" }, { close: true }],
        },
      ],
    });
    expect(report.status).toBe("finished");
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.hello).toMatchObject({ requests: 20, failures: 0 });
    expect(byName["chat.reply"]).toMatchObject({ requests: 20, failures: 0 });
    expect(report.workers.filter((w) => w.requests > 0)).toHaveLength(2);
    const requests = https1.seen.filter((s) => s.path === "/hello");
    const sockets = https1.seen.filter((s) => s.path === "ws /chat");
    expect(requests).toHaveLength(20);
    expect(sockets).toHaveLength(20);
    expect(https1.wsMessages).toBe(20);
    for (const seen of [...requests, ...sockets]) {
      expect(seen).toMatchObject({ cn: "volley-client", host: origin, servername: "api.volley.test" });
    }
  });

  it("HTTP/2 with the certificate as PKCS#12 (passphrase from env) for its origin", async () => {
    https2.seen.length = 0;
    const h2 = `https://h2.volley.test:${https2.port}`;
    const report = await run(
      {
        target: h2,
        env: ["PFX_PASS"],
        load: { executor: "per-vu-iterations", vus: 3, iterations: 4 },
        http: {
          version: 2,
          hosts: { "h2.volley.test": "127.0.0.3" },
          origins: {
            [h2]: { tls: { pfx: "certs/client.p12", passphrase: "{{env.PFX_PASS}}", ca: "certs/ca.pem" } },
          },
        },
        requests: [{ name: "h2", path: "/h2" }],
      },
      { env: { PFX_PASS: pki.pfxPassphrase } },
    );
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.h2).toMatchObject({ requests: 12, failures: 0 });
    expect(https2.seen).toHaveLength(12);
    expect(https2.seen.every((s) => s.version === "2.0" && s.cn === "volley-client")).toBe(true);
  });

  it("without the client certificate the server's handshake refuses every request, each a failure", async () => {
    https1.seen.length = 0;
    const report = await run({
      target: `https://api.volley.test:${https1.port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: { tls: { ca: "certs/ca.pem" }, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ name: "no-cert", path: "/no-cert" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 6 });
    expect(report.summary.errors.map((e) => [e.kind, e.count, e.message])).toEqual([
      ["connect", 6, "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: tlsv13 alert certificate required"],
    ]);
    expect(https1.seen).toHaveLength(0);
  });

  it("minVersion: a client that asks for TLS 1.3 does not talk to a server that stops at 1.2", async () => {
    const old = createHttpsServer(
      { key: pki.serverKey, cert: pki.serverCert, maxVersion: "TLSv1.2" },
      (_req, res) => res.writeHead(200, { "content-length": 0 }).end(),
    );
    await new Promise<void>((resolve) => old.listen(0, "127.0.0.2", resolve));
    servers.push({ close: () => old.close() });
    const scenario = (minVersion: string) => ({
      target: `https://api.volley.test:${(old.address() as AddressInfo).port}`,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      http: { tls: { ca: "certs/ca.pem", minVersion }, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ name: "tls", path: "/" }],
    });
    const twelve = await run(scenario("TLSv1.2"));
    expect(twelve.summary.total).toMatchObject({ requests: 2, failures: 0 });
    const thirteen = await run(scenario("TLSv1.3"));
    expect(thirteen.summary.total).toMatchObject({ requests: 2, failures: 2 });
    expect(thirteen.summary.errors.map((e) => [e.kind, e.message])).toEqual([
      ["connect", "write EPROTO tlsv1 alert protocol version"],
    ]);
  });

  it("gRPC over TLS with a client certificate to a hosts name", async () => {
    grpcServer.reset();
    const report = await run(
      {
        target: `grpcs://grpc.volley.test:${grpcServer.port}`,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        http: { tls: CLIENT_PEM, hosts: { "grpc.volley.test": "127.0.0.2" } },
        requests: [
          {
            name: "hello",
            grpc: {
              proto: "protos/greeter.proto",
              method: "volley.example.Greeter/SayHello",
              message: { name: "tls" },
            },
          },
        ],
      },
      { attachments: { ...CERTS, ...PROTOS } },
    );
    expect(report.summary.statusCodes).toEqual({ "grpc:OK": 6 });
    expect(grpcServer.counts.calls.SayHello).toBe(6);
  });
});

describe("http.dns", () => {
  let a: Server;
  let b: Server;
  const counts = { a: 0, b: 0 };
  beforeAll(async () => {
    a = createHttpServer((_req, res) => {
      counts.a++;
      res.writeHead(200, { "content-length": 0, connection: "close" }).end();
    });
    await new Promise<void>((resolve) => a.listen(0, "127.0.0.2", resolve));
    const { port } = a.address() as AddressInfo;
    b = createHttpServer((_req, res) => {
      counts.b++;
      res.writeHead(200, { "content-length": 0, connection: "close" }).end();
    });
    await new Promise<void>((resolve) => b.listen(port, "127.0.0.3", resolve));
    servers.push({ close: () => a.close() }, { close: () => b.close() });
  });

  it("round-robin spreads a name's connections over its addresses; first keeps to one", async () => {
    const port = (a.address() as AddressInfo).port;
    const scenario = (select: string) => ({
      target: `http://rr.volley.test:${port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 10 },
      http: { hosts: { "rr.volley.test": ["127.0.0.2", "127.0.0.3"] }, dns: { select } },
      requests: [{ name: "rr", path: "/" }],
    });
    const spread = await run(scenario("round-robin"));
    expect(spread.summary.total).toMatchObject({ requests: 20, failures: 0 });
    // Each response closes its connection: every request is a connect, and each thread
    // alternates between the two addresses.
    expect(counts).toEqual({ a: 10, b: 10 });
    counts.a = counts.b = 0;
    const first = await run(scenario("first"));
    expect(first.summary.total).toMatchObject({ requests: 20, failures: 0 });
    expect(counts).toEqual({ a: 20, b: 0 });
  });

  it("asks the name servers of http.dns.servers: round-robin over the answer's two addresses, again after the TTL", async () => {
    const dns = await startTestDns();
    servers.push(dns);
    dns.records.set("svc.volley.test", ["127.0.0.2", "127.0.0.3"]);
    const port = (a.address() as AddressInfo).port;
    const scenario = (ttl: string, load: Record<string, unknown>) => ({
      target: `http://svc.volley.test:${port}`,
      load,
      http: { dns: { servers: [dns.server], ttl, select: "round-robin" } },
      requests: [{ name: "svc", path: "/" }],
    });
    counts.a = counts.b = 0;
    // Kept for the run: each engine thread (one on each of two workers) asks once.
    const kept = await run(scenario("5m", { executor: "per-vu-iterations", vus: 2, iterations: 10 }));
    expect(kept.summary.total).toMatchObject({ requests: 20, failures: 0 });
    expect(counts).toEqual({ a: 10, b: 10 });
    expect(dns.asked.get("svc.volley.test")).toBe(2);
    // A TTL shorter than the run: asked again while it runs, and the new answer is used.
    dns.asked.clear();
    counts.a = counts.b = 0;
    const created = await create(scenario("300ms", { executor: "constant-vus", vus: 2, duration: "4s" }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitFor(() => counts.a + counts.b >= 20 || undefined, { what: "the first requests" });
    dns.records.set("svc.volley.test", ["127.0.0.3"]);
    // Once each thread has asked again (twice: its first new answer is in hand before the
    // second question), no connection goes to the address that left the answer.
    const askedAtSwitch = dns.asked.get("svc.volley.test") ?? 0;
    await waitFor(() => (dns.asked.get("svc.volley.test") ?? 0) >= askedAtSwitch + 6 || undefined, {
      what: "both threads to ask again",
    });
    const aAfter = counts.a;
    const refreshed = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 30_000);
    expect(refreshed.summary.errors).toEqual([]);
    expect(refreshed.summary.total.requests).toBe(counts.a + counts.b);
    expect(counts.a).toBe(aAfter);
    dns.records.delete("svc.volley.test");
  });

  it("a name that does not resolve fails its requests with kind dns, each counted", async () => {
    const report = await run({
      target: "http://no-such-host.volley-test.invalid",
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      requests: [{ name: "nowhere", path: "/" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 6 });
    expect(report.summary.errors.map((e) => [e.kind, e.count])).toEqual([["dns", 6]]);
  });
});

describe("http.localAddresses", () => {
  it("spreads connections over the source addresses; one the machine lacks refuses the run, naming it", async () => {
    const sources = new Map<string, number>();
    const server = createHttpServer((_req, res) => res.writeHead(200, { "content-length": 0 }).end());
    server.on("connection", (socket) => {
      const from = socket.remoteAddress ?? "";
      sources.set(from, (sources.get(from) ?? 0) + 1);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push({
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    });
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const report = await run({
      target,
      load: { executor: "per-vu-iterations", vus: 8, iterations: 5 },
      http: { localAddresses: ["127.0.0.2-127.0.0.5"] },
      requests: [{ name: "spread", path: "/" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 40, failures: 0 });
    // Two workers of one thread, four connections each, round-robin over four addresses.
    expect(Object.fromEntries(sources)).toEqual({
      "127.0.0.2": 2,
      "127.0.0.3": 2,
      "127.0.0.4": 2,
      "127.0.0.5": 2,
    });
    const refused = await run({
      target,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 1 },
      http: { localAddresses: ["127.0.0.2", "192.0.2.1"] },
      requests: [{ name: "never", path: "/" }],
    });
    expect(refused.status).toBe("failed");
    expect(JSON.stringify(refused)).toContain("http.localAddresses: 192.0.2.1 is not an address of");
    expect(refused.summary.total.requests).toBe(0);
  });
});

describe("http.proxy", () => {
  let proxy: TestProxy;
  beforeAll(async () => {
    proxy = await startForwardProxy();
    servers.push(proxy);
  });

  it("HTTP in absolute form, HTTPS with a client certificate, WebSocket and gRPC through CONNECT: the proxy carried every one", async () => {
    proxy.reset();
    https1.seen.length = 0;
    grpcServer.reset();
    const { target } = fleet;
    target.reset();
    const tlsOrigin = `127.0.0.2:${https1.port}`;
    const report = await run({
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: { proxy: proxy.url, tls: CLIENT_PEM },
      requests: [
        { name: "plain", path: "/hello" },
        { name: "secure", url: `https://${tlsOrigin}/secure` },
        {
          name: "chat",
          ws: `wss://${tlsOrigin}/chat`,
          steps: [{ send: "hi" }, { expect: "echo: hi" }, { close: true }],
        },
      ],
    });
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r]));
    for (const name of ["plain", "secure", "chat.reply"])
      expect(byName[name]).toMatchObject({ requests: 6, failures: 0 });
    const targetHost = new URL(target.url).host;
    expect(proxy.forwarded.get(targetHost)).toBe(6);
    expect(target.counts.get("/hello")).toBe(6);
    expect(https1.seen.filter((s) => s.path === "/secure" && s.cn === "volley-client")).toHaveLength(6);
    expect(https1.seen.filter((s) => s.path === "ws /chat")).toHaveLength(6);
    // Keep-alive tunnels for HTTPS (one per VU at least), one per socket for WebSocket.
    expect(proxy.tunnels.get(tlsOrigin)).toBeGreaterThanOrEqual(6 + 1);
    const rpc = await run(
      {
        target: `grpcs://127.0.0.2:${grpcServer.port}`,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        http: { proxy: proxy.url, tls: CLIENT_PEM },
        requests: [
          {
            name: "rpc",
            grpc: {
              proto: "protos/greeter.proto",
              method: "volley.example.Greeter/SayHello",
              message: { name: "p" },
            },
          },
        ],
      },
      { attachments: { ...CERTS, ...PROTOS } },
    );
    expect(rpc.summary.statusCodes).toEqual({ "grpc:OK": 6 });
    expect(grpcServer.counts.calls.SayHello).toBe(6);
    // A channel per VU, each its own tunnel.
    expect(proxy.tunnels.get(`127.0.0.2:${grpcServer.port}`)).toBe(2);
    expect(proxy.refused).toBe(0);
  });

  it("HTTP/2 through a CONNECT tunnel, negotiated inside it by ALPN", async () => {
    proxy.reset();
    https2.seen.length = 0;
    const origin = `127.0.0.3:${https2.port}`;
    const report = await run({
      target: `https://${origin}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: { version: 2, proxy: proxy.url, tls: { ...CLIENT_PEM, servername: "h2.volley.test" } },
      requests: [{ name: "h2", path: "/h2-proxied" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 0 });
    expect(https2.seen.filter((s) => s.version === "2.0" && s.servername === "h2.volley.test")).toHaveLength(
      6,
    );
    expect(proxy.tunnels.get(origin)).toBeGreaterThanOrEqual(1);
  });

  it("HTTPS_PROXY/HTTP_PROXY and NO_PROXY of the worker's environment when the scenario names none; false for none", async () => {
    proxy.reset();
    const { target } = fleet;
    const port = new URL(target.url).port;
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = "localhost";
    try {
      const scenario = (http: Record<string, unknown>) => ({
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 4 },
        http,
        requests: [
          { name: "via", path: "/hello" },
          { name: "direct", url: `http://localhost:${port}/hello` },
        ],
      });
      const fromEnv = await run(scenario({}));
      expect(fromEnv.summary.errors).toEqual([]);
      expect(fromEnv.summary.total).toMatchObject({ requests: 8, failures: 0 });
      expect([...proxy.forwarded]).toEqual([[`127.0.0.1:${port}`, 4]]);
      proxy.reset();
      const none = await run(scenario({ proxy: false }));
      expect(none.summary.total).toMatchObject({ requests: 8, failures: 0 });
      expect(proxy.forwarded.size).toBe(0);
    } finally {
      delete process.env.HTTP_PROXY;
      delete process.env.NO_PROXY;
    }
  });

  it("a proxy that refuses the credentials: every request fails as connect, plain or tunnelled", async () => {
    proxy.reset();
    const wrong = proxy.url.replace("proxy-pw", "nope");
    const report = await run({
      target: fleet.target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      http: { proxy: wrong, tls: CLIENT_PEM },
      requests: [
        { name: "plain", path: "/hello" },
        { name: "secure", url: `https://127.0.0.2:${https1.port}/secure` },
      ],
    });
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.plain).toMatchObject({ requests: 2, failures: 2 });
    expect(byName.secure).toMatchObject({ requests: 2, failures: 2 });
    expect(report.summary.errors.map((e) => [e.request, e.kind, e.count])).toEqual([
      ["plain", "connect", 2],
      ["secure", "connect", 2],
    ]);
    expect(proxy.refused).toBe(4);
  });
});

describe("bad network settings", () => {
  const target = () => `https://api.volley.test:${https1.port}`;
  const issueOf = async (http: Record<string, unknown>, attachments = CERTS) => {
    const created = await create(
      {
        target: target(),
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        http,
        requests: [{ path: "/" }],
      },
      { attachments },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    return JSON.stringify(created.body);
  };

  it("a key that is not the certificate's, a wrong passphrase, a CA that is not PEM, a file not sent: 400 naming the field, no run made", async () => {
    const before = (await getJson<{ runs: unknown[] }>(`${master.url}/api/runs`)).runs.length;
    expect(await issueOf({ tls: { cert: "certs/client.pem", key: "certs/stray.key" } })).toMatch(
      /http\.tls\.key.*certs\/stray\.key is not the key of certs\/client\.pem/,
    );
    expect(await issueOf({ tls: { pfx: "certs/client.p12", passphrase: "wrong" } })).toMatch(
      /http\.tls\.passphrase.*the passphrase does not open it/,
    );
    expect(await issueOf({ tls: { ca: "certs/not-a-cert.pem" } })).toMatch(
      /http\.tls\.ca.*holds no PEM certificate/,
    );
    expect(await issueOf({ tls: { ca: "certs/broken-ca.pem" } })).toMatch(
      /http\.tls\.ca.*certificate 2 of certs\/broken-ca\.pem does not parse as a certificate/,
    );
    expect(await issueOf({ tls: { cert: "certs/not-a-cert.pem", key: "certs/client.key" } })).toMatch(
      /http\.tls\.cert.*certs\/not-a-cert\.pem does not parse as a PEM certificate \(no start line\)/,
    );
    expect(await issueOf({ tls: { ca: "certs/missing.pem" } })).toMatch(
      /http\.tls\.ca.*was not sent with the scenario/,
    );
    expect(await issueOf({ tls: { cert: "certs/client.pem" } })).toMatch(
      /http\.tls\.key.*cert and key go together/,
    );
    expect(await issueOf({ hosts: { "api.volley.test": "not-an-ip" } })).toMatch(/http\.hosts.*IPv4 or IPv6/);
    expect(await issueOf({ hosts: { "bad host!": "127.0.0.2" } })).toMatch(
      /http\.hosts.*host name or \*\.domain/,
    );
    expect(await issueOf({ dns: { select: "closest" } })).toMatch(/http\.dns\.select/);
    expect(await issueOf({ origins: { "https://x.test/path": { tls: {} } } })).toMatch(
      /http\.origins.*origin key/,
    );
    expect(await issueOf({ proxy: "socks5://127.0.0.1:1080" })).toMatch(/http\.proxy.*an HTTP forward proxy/);
    expect(await issueOf({ dns: { servers: ["dns.example"] } })).toMatch(
      /http\.dns\.servers\[0\]: a DNS server is an IP address/,
    );
    expect(await issueOf({ localAddresses: ["127.0.0.9-127.0.0.2"] })).toMatch(/range ends before it starts/);
    const after = (await getJson<{ runs: unknown[] }>(`${master.url}/api/runs`)).runs.length;
    expect(after).toBe(before);
  });

  it("volley run reads the certificate files beside the scenario: runs with them, exits 2 naming the field for a bad key or a missing file", async () => {
    const cli = cliSandbox("volley-tls-");
    mkdirSync(join(cli.dir, "certs"));
    for (const [name, bytes] of [
      ["ca.pem", pki.caCert],
      ["client.pem", pki.clientCert],
      ["client.key", pki.clientKey],
      ["stray.key", pki.strayKey],
    ] as const) {
      writeFileSync(join(cli.dir, "certs", name), bytes);
    }
    https1.seen.length = 0;
    const scenario = (tls: Record<string, unknown>) => ({
      name: "cli-mtls",
      target: `https://api.volley.test:${https1.port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 2 },
      http: { tls, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ name: "cli", path: "/cli" }],
    });
    const good = await cli.volley([
      "run",
      cli.writeScenario("good.json", scenario(CLIENT_PEM)),
      "--threads",
      "1",
    ]);
    expect(good.code, good.output).toBe(0);
    expect(https1.seen.filter((s) => s.path === "/cli" && s.cn === "volley-client")).toHaveLength(4);
    const wrongKey = await cli.volley([
      "run",
      cli.writeScenario("wrong-key.json", scenario({ ...CLIENT_PEM, key: "certs/stray.key" })),
    ]);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.output).toContain("http.tls.key: certs/stray.key is not the key of certs/client.pem");
    const missing = await cli.volley([
      "run",
      cli.writeScenario("missing.json", scenario({ ...CLIENT_PEM, ca: "certs/nowhere.pem" })),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/http\.tls\.ca.*certs\/nowhere\.pem/);
  });

  it("the run's files list names certificates without their content", async () => {
    const created = await create({
      target: target(),
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      http: { tls: CLIENT_PEM, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ path: "/files" }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await waitForRunEnd(master.url, id, 30_000);
    const { files } = await getJson<{ files: Array<Record<string, unknown>> }>(
      `${master.url}/api/runs/${id}/files`,
    );
    expect(files.map((f) => [f.kind, f.name]).sort()).toEqual([
      ["certificate", "certs/ca.pem"],
      ["certificate", "certs/client.key"],
      ["certificate", "certs/client.pem"],
    ]);
    expect(JSON.stringify(files)).not.toContain("PRIVATE KEY");
  });
});
