import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { RunDetail } from "@volley/protocol";
import { beforeAll, describe, expect, it } from "vitest";
import { startTestDns } from "./support/dns-server.js";
import { CLIENT_PEM, networkSuite } from "./support/network-targets.js";
import { waitFor, waitForRunEnd } from "./support/processes.js";

// http.tls, http.origins, http.hosts, http.dns and http.localAddresses against the mTLS targets
// of support/network-targets.ts: what each server saw (the client certificate's name, the Host
// header, SNI, the source address) is counted and set against the report.
const net = networkSuite();

describe("http.tls and http.hosts", () => {
  it("HTTP/1.1 and WebSocket with a client certificate, through a hosts wildcard: the server saw the certificate, the name in Host and SNI", async () => {
    net.https1.seen.length = 0;
    net.https1.wsMessages = 0;
    const origin = `api.volley.test:${net.https1.port}`;
    const report = await net.run({
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
    const requests = net.https1.seen.filter((s) => s.path === "/hello");
    const sockets = net.https1.seen.filter((s) => s.path === "ws /chat");
    expect(requests).toHaveLength(20);
    expect(sockets).toHaveLength(20);
    expect(net.https1.wsMessages).toBe(20);
    for (const seen of [...requests, ...sockets]) {
      expect(seen).toMatchObject({ cn: "volley-client", host: origin, servername: "api.volley.test" });
    }
  });

  it("HTTP/2 with the certificate as PKCS#12 (passphrase from env) for its origin", async () => {
    net.https2.seen.length = 0;
    const h2 = `https://h2.volley.test:${net.https2.port}`;
    const report = await net.run(
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
      { env: { PFX_PASS: net.pki.pfxPassphrase } },
    );
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.h2).toMatchObject({ requests: 12, failures: 0 });
    expect(net.https2.seen).toHaveLength(12);
    expect(net.https2.seen.every((s) => s.version === "2.0" && s.cn === "volley-client")).toBe(true);
  });

  it("without the client certificate the server's handshake refuses every request, each a failure", async () => {
    net.https1.seen.length = 0;
    const report = await net.run({
      target: `https://api.volley.test:${net.https1.port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: { tls: { ca: "certs/ca.pem" }, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ name: "no-cert", path: "/no-cert" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 6 });
    expect(report.summary.errors.map((e) => [e.kind, e.count, e.message])).toEqual([
      ["connect", 6, "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: tlsv13 alert certificate required"],
    ]);
    expect(net.https1.seen).toHaveLength(0);
  });

  it("minVersion: a client that asks for TLS 1.3 does not talk to a server that stops at 1.2", async () => {
    const old = createHttpsServer(
      { key: net.pki.serverKey, cert: net.pki.serverCert, maxVersion: "TLSv1.2" },
      (_req, res) => res.writeHead(200, { "content-length": 0 }).end(),
    );
    await new Promise<void>((resolve) => old.listen(0, "127.0.0.2", resolve));
    net.servers.push({ close: () => old.close() });
    const scenario = (minVersion: string) => ({
      target: `https://api.volley.test:${(old.address() as AddressInfo).port}`,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      http: { tls: { ca: "certs/ca.pem", minVersion }, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ name: "tls", path: "/" }],
    });
    const twelve = await net.run(scenario("TLSv1.2"));
    expect(twelve.summary.total).toMatchObject({ requests: 2, failures: 0 });
    const thirteen = await net.run(scenario("TLSv1.3"));
    expect(thirteen.summary.total).toMatchObject({ requests: 2, failures: 2 });
    expect(thirteen.summary.errors.map((e) => [e.kind, e.message])).toEqual([
      ["connect", "write EPROTO tlsv1 alert protocol version"],
    ]);
  });

  it("gRPC over TLS with a client certificate to a hosts name", async () => {
    net.grpcServer.reset();
    const report = await net.grpcHellos("grpc.volley.test", {
      tls: CLIENT_PEM,
      hosts: { "grpc.volley.test": "127.0.0.2" },
    });
    expect(report.summary.statusCodes).toEqual({ "grpc:OK": 6 });
    expect(net.grpcServer.counts.calls.SayHello).toBe(6);
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
    net.servers.push({ close: () => a.close() }, { close: () => b.close() });
  });

  it("round-robin spreads a name's connections over its addresses; first keeps to one", async () => {
    const port = (a.address() as AddressInfo).port;
    const scenario = (select: string) => ({
      target: `http://rr.volley.test:${port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 10 },
      http: { hosts: { "rr.volley.test": ["127.0.0.2", "127.0.0.3"] }, dns: { select } },
      requests: [{ name: "rr", path: "/" }],
    });
    const spread = await net.run(scenario("round-robin"));
    expect(spread.summary.total).toMatchObject({ requests: 20, failures: 0 });
    // Each response closes its connection: every request is a connect, and each thread
    // alternates between the two addresses.
    expect(counts).toEqual({ a: 10, b: 10 });
    counts.a = counts.b = 0;
    const first = await net.run(scenario("first"));
    expect(first.summary.total).toMatchObject({ requests: 20, failures: 0 });
    expect(counts).toEqual({ a: 20, b: 0 });
  });

  it("asks the name servers of http.dns.servers: round-robin over the answer's two addresses, again after the TTL", async () => {
    const dns = await startTestDns();
    net.servers.push(dns);
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
    const kept = await net.run(scenario("5m", { executor: "per-vu-iterations", vus: 2, iterations: 10 }));
    expect(kept.summary.total).toMatchObject({ requests: 20, failures: 0 });
    expect(counts).toEqual({ a: 10, b: 10 });
    expect(dns.asked.get("svc.volley.test")).toBe(2);
    // A TTL shorter than the run: asked again while it runs, and the new answer is used.
    dns.asked.clear();
    counts.a = counts.b = 0;
    const created = await net.create(scenario("300ms", { executor: "constant-vus", vus: 2, duration: "4s" }));
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
    const refreshed = await waitForRunEnd<RunDetail>(net.master.url, created.body.id as string, 30_000);
    expect(refreshed.summary.errors).toEqual([]);
    expect(refreshed.summary.total.requests).toBe(counts.a + counts.b);
    expect(counts.a).toBe(aAfter);
    dns.records.delete("svc.volley.test");
  });

  it("a name that does not resolve fails its requests with kind dns, each counted", async () => {
    const report = await net.run({
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
    net.servers.push({
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    });
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const report = await net.run({
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
    const refused = await net.run({
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
