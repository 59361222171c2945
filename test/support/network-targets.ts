import { readFileSync } from "node:fs";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, expect } from "vitest";
import { WebSocketServer } from "ws";
import { type GrpcTestServer, startGrpcServer, TEST_PROTOS } from "./grpc-server.js";
import { startTestFleet, type TestFleet } from "./in-process.js";
import { sendJson, waitForRunEnd } from "./processes.js";
import { makeTestPki, type TestPki } from "./test-pki.js";

// The targets of the network suites (network-tls, network-proxy): servers on 127.0.0.2 and
// 127.0.0.3 that only a client with the private CA's certificate may talk to, reachable under
// their test names only through http.hosts; each counts what it saw of every request (the
// client certificate's name, the Host header, SNI).

/** What an mTLS server saw of each request. */
export interface Seen {
  cn: string;
  host: string;
  servername: string;
  version: string;
  path: string;
  /** The request's W3C trace context, when it carried one (`http.tracing`). */
  traceparent: string;
}

export interface NetworkTargets {
  pki: TestPki;
  /** The run's certificate attachments (base64 by file name), good and bad ones. */
  certs: Record<string, string>;
  /** HTTP/1.1 and WebSocket on 127.0.0.2. */
  https1: { port: number; seen: Seen[]; wsMessages: number };
  /** HTTP/2 only, on 127.0.0.3. */
  https2: { port: number; seen: Seen[] };
  /** gRPC over mTLS on 127.0.0.2. */
  grpcServer: GrpcTestServer;
  /** Closed with the targets: a suite adds the servers it starts itself. */
  servers: Array<{ close(): unknown }>;
  close(): Promise<void>;
}

const base64 = (b: Buffer) => b.toString("base64");

export const CLIENT_PEM = { cert: "certs/client.pem", key: "certs/client.key", ca: "certs/ca.pem" };
export const PROTOS = {
  "protos/greeter.proto": base64(readFileSync(join(TEST_PROTOS, "greeter.proto"))),
  "protos/common/stamp.proto": base64(readFileSync(join(TEST_PROTOS, "common/stamp.proto"))),
};

export function seenOf(req: {
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
    traceparent: String(req.headers.traceparent ?? ""),
  };
}

export async function startNetworkTargets(): Promise<NetworkTargets> {
  const pki = makeTestPki(["api.volley.test", "h2.volley.test", "grpc.volley.test", "127.0.0.2"]);
  const certs = {
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
  const servers: Array<{ close(): unknown }> = [];
  const mtls = {
    key: pki.serverKey,
    cert: pki.serverCert,
    ca: pki.caCert,
    requestCert: true,
    rejectUnauthorized: true,
  };
  const seen1: Seen[] = [];
  const server1 = createHttpsServer(mtls, (req, res) => {
    seen1.push(seenOf(req));
    res.writeHead(200, { "content-length": 2 }).end("ok");
  });
  const https1 = { port: 0, seen: seen1, wsMessages: 0 };
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
  const seen2: Seen[] = [];
  const server2: Http2SecureServer = createSecureServer({ ...mtls, allowHTTP1: false });
  server2.on("request", (req, res) => {
    seen2.push(seenOf(req as never));
    res.writeHead(200, { "content-length": 2 }).end("ok");
  });
  await new Promise<void>((resolve) => server2.listen(0, "127.0.0.3", resolve));
  const https2 = { port: (server2.address() as AddressInfo).port, seen: seen2 };
  servers.push({ close: () => server2.close() });
  const grpcServer = await startGrpcServer(
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert },
    "127.0.0.2",
  );
  servers.push(grpcServer);
  return {
    pki,
    certs,
    https1,
    https2,
    grpcServer,
    servers,
    close: async () => {
      for (const server of servers) await server.close();
    },
  };
}

/** Creates runs on the master with the targets' certificates attached; `run` waits for the end. */
export function networkRuns(masterUrl: () => string, certs: () => Record<string, string>) {
  const create = (scenario: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    sendJson("POST", `${masterUrl()}/api/runs`, {
      attachments: certs(),
      ...extra,
      scenario: { name: "network", ...scenario },
    });
  const run = async (
    scenario: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Promise<RunDetail> => {
    const created = await create(scenario, extra);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitForRunEnd<RunDetail>(masterUrl(), created.body.id as string, 60_000);
  };
  return { create, run };
}

/** A network suite's targets and fleet (two workers, a thread each), with its run helpers. */
export interface NetworkSuite extends NetworkTargets, ReturnType<typeof networkRuns> {
  fleet: TestFleet;
  master: RunningMaster;
  /** Two VUs × three SayHello calls to the gRPC target through `host` (its port), with `http`. */
  grpcHellos(host: string, http: Record<string, unknown>): Promise<RunDetail>;
}

/**
 * Starts the targets and a fleet before the suite's tests and closes both after them: call at
 * the top of a test file; the fields are there once its `beforeAll` ran.
 */
export function networkSuite(): NetworkSuite {
  const suite = {} as NetworkSuite;
  Object.assign(
    suite,
    networkRuns(
      () => suite.master.url,
      () => suite.certs,
    ),
  );
  suite.grpcHellos = (host, http) =>
    suite.run(
      {
        target: `grpcs://${host}:${suite.grpcServer.port}`,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        http,
        requests: [
          {
            name: "hello",
            grpc: {
              proto: "protos/greeter.proto",
              method: "volley.example.Greeter/SayHello",
              message: { name: "network" },
            },
          },
        ],
      },
      { attachments: { ...suite.certs, ...PROTOS } },
    );
  beforeAll(async () => {
    Object.assign(suite, await startNetworkTargets());
    suite.fleet = await startTestFleet({ workers: 2, threads: 1 });
    suite.master = suite.fleet.master;
  });
  afterAll(async () => {
    await suite.fleet?.close();
    await suite.close?.();
  });
  return suite;
}
