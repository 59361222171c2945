import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliSandbox } from "./support/cli-sandbox.js";
import { startForwardProxy, type TestProxy } from "./support/forward-proxy.js";
import { CLIENT_PEM, networkSuite } from "./support/network-targets.js";
import { getJson, waitForRunEnd } from "./support/processes.js";

// http.proxy through a counting forward proxy to the mTLS targets of support/network-targets.ts,
// and bad network settings refused before a run is made (API and volley run).
const net = networkSuite();

describe("http.proxy", () => {
  let proxy: TestProxy;
  beforeAll(async () => {
    proxy = await startForwardProxy();
    net.servers.push(proxy);
  });

  it("HTTP in absolute form, HTTPS with a client certificate, WebSocket and gRPC through CONNECT: the proxy carried every one", async () => {
    proxy.reset();
    net.https1.seen.length = 0;
    net.grpcServer.reset();
    const { target } = net.fleet;
    target.reset();
    const tlsOrigin = `127.0.0.2:${net.https1.port}`;
    const report = await net.run({
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
    expect(net.https1.seen.filter((s) => s.path === "/secure" && s.cn === "volley-client")).toHaveLength(6);
    expect(net.https1.seen.filter((s) => s.path === "ws /chat")).toHaveLength(6);
    // Keep-alive tunnels for HTTPS (one per VU at least), one per socket for WebSocket.
    expect(proxy.tunnels.get(tlsOrigin)).toBeGreaterThanOrEqual(6 + 1);
    const rpc = await net.grpcHellos("127.0.0.2", { proxy: proxy.url, tls: CLIENT_PEM });
    expect(rpc.summary.statusCodes).toEqual({ "grpc:OK": 6 });
    expect(net.grpcServer.counts.calls.SayHello).toBe(6);
    // A channel per VU, each its own tunnel.
    expect(proxy.tunnels.get(`127.0.0.2:${net.grpcServer.port}`)).toBe(2);
    expect(proxy.refused).toBe(0);
  });

  it("HTTP/2 through a CONNECT tunnel, negotiated inside it by ALPN, each request with its traceparent", async () => {
    proxy.reset();
    net.https2.seen.length = 0;
    const origin = `127.0.0.3:${net.https2.port}`;
    const report = await net.run({
      target: `https://${origin}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: {
        version: 2,
        proxy: proxy.url,
        tls: { ...CLIENT_PEM, servername: "h2.volley.test" },
        tracing: { propagate: "w3c" },
      },
      requests: [{ name: "h2", path: "/h2-proxied" }],
    });
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 0 });
    expect(
      net.https2.seen.filter((s) => s.version === "2.0" && s.servername === "h2.volley.test"),
    ).toHaveLength(6);
    // undici's ProxyAgent takes it among the headers: the proxy path moves it there.
    const traced = new Set(
      net.https2.seen.map((s) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(s.traceparent)?.[1]),
    );
    expect([...traced].filter(Boolean)).toHaveLength(6);
    expect(proxy.tunnels.get(origin)).toBeGreaterThanOrEqual(1);
  });

  it("HTTPS_PROXY/HTTP_PROXY and NO_PROXY of the worker's environment when the scenario names none; false for none", async () => {
    proxy.reset();
    const { target } = net.fleet;
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
      const fromEnv = await net.run(scenario({}));
      expect(fromEnv.summary.errors).toEqual([]);
      expect(fromEnv.summary.total).toMatchObject({ requests: 8, failures: 0 });
      expect([...proxy.forwarded]).toEqual([[`127.0.0.1:${port}`, 4]]);
      proxy.reset();
      const none = await net.run(scenario({ proxy: false }));
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
    const report = await net.run({
      target: net.fleet.target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      http: { proxy: wrong, tls: CLIENT_PEM },
      requests: [
        { name: "plain", path: "/hello" },
        { name: "secure", url: `https://127.0.0.2:${net.https1.port}/secure` },
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
  const target = () => `https://api.volley.test:${net.https1.port}`;
  const issueOf = async (http: Record<string, unknown>, attachments = net.certs) => {
    const created = await net.create(
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
    const before = (await getJson<{ runs: unknown[] }>(`${net.master.url}/api/runs`)).runs.length;
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
    const after = (await getJson<{ runs: unknown[] }>(`${net.master.url}/api/runs`)).runs.length;
    expect(after).toBe(before);
  });

  it("volley run reads the certificate files beside the scenario: runs with them, exits 2 naming the field for a bad key or a missing file", async () => {
    const cli = cliSandbox("volley-tls-");
    mkdirSync(join(cli.dir, "certs"));
    for (const [name, bytes] of [
      ["ca.pem", net.pki.caCert],
      ["client.pem", net.pki.clientCert],
      ["client.key", net.pki.clientKey],
      ["stray.key", net.pki.strayKey],
    ] as const) {
      writeFileSync(join(cli.dir, "certs", name), bytes);
    }
    net.https1.seen.length = 0;
    const scenario = (tls: Record<string, unknown>) => ({
      name: "cli-mtls",
      target: `https://api.volley.test:${net.https1.port}`,
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
    expect(net.https1.seen.filter((s) => s.path === "/cli" && s.cn === "volley-client")).toHaveLength(4);
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
    const created = await net.create({
      target: target(),
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      http: { tls: CLIENT_PEM, hosts: { "api.volley.test": "127.0.0.2" } },
      requests: [{ path: "/files" }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await waitForRunEnd(net.master.url, id, 30_000);
    const { files } = await getJson<{ files: Array<Record<string, unknown>> }>(
      `${net.master.url}/api/runs/${id}/files`,
    );
    expect(files.map((f) => [f.kind, f.name]).sort()).toEqual([
      ["certificate", "certs/ca.pem"],
      ["certificate", "certs/client.key"],
      ["certificate", "certs/client.pem"],
    ]);
    expect(JSON.stringify(files)).not.toContain("PRIVATE KEY");
  });
});
