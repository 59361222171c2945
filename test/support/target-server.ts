import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";

/**
 * A loopback HTTP server for tests and benchmarks that counts what it receives, so a test can
 * compare Volley's report with the truth. Routes:
 *   /hello                 200 "hello world"
 *   POST /login            200 {"token":"t-<user>"} from a JSON body {"user": ...}
 *   POST /orders           200 with "authorization: Bearer t-...", else 401
 *   /status/<code>         that status
 *   /slow?ms=N             answers after N ms
 *   /reset                 closes the connection without answering
 *   /echo                  the request's method, path, headers and body as JSON
 *   /cookie/set?name=&value=&path=   sets that cookie (Set-Cookie), answers "set"
 *   /redirect?to=&code=    a redirect (default 302) to `to`
 *   /compressed?as=gzip|br|deflate   {"token":"z-<as>","pad":"..."} compressed when accepted
 *   anything else          200 "ok"
 * While `stallUntil` is in the future, every response waits until then.
 */
export interface TargetServer {
  url: string;
  port: number;
  server: Server;
  /** Requests received, by path without query. */
  counts: Map<string, number>;
  /** Requests received, by the client's address (IPv4-mapped addresses as plain IPv4). */
  sources: Map<string, number>;
  total(): number;
  /** Sockets accepted and sockets still open. */
  connections: { accepted: number; open: number };
  /** Requests received and not answered yet, now and at most at once (since the last reset). */
  inFlight: { now: number; peak: number };
  /** The first requests' URL, headers and body (at most 20,000), for tests that check what was sent. */
  log: Array<{
    method: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    at: number;
  }>;
  stallUntil: number;
  reset(): void;
  close(): Promise<void>;
}

export async function startTargetServer(port = 0, host = "127.0.0.1"): Promise<TargetServer> {
  const counts = new Map<string, number>();
  const sources = new Map<string, number>();
  const sockets = new Set<Socket>();
  const connections = { accepted: 0, open: 0 };
  const state: TargetServer = {
    url: "",
    port: 0,
    server: createServer((req, res) => handle(state, req, res)),
    counts,
    sources,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    connections,
    inFlight: { now: 0, peak: 0 },
    log: [],
    stallUntil: 0,
    reset: () => {
      counts.clear();
      sources.clear();
      state.log.length = 0;
      state.inFlight.peak = state.inFlight.now;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        state.server.close(() => resolve());
      }),
  };
  state.server.keepAliveTimeout = 120_000;
  state.server.headersTimeout = 130_000;
  state.server.on("connection", (socket: Socket) => {
    connections.accepted++;
    connections.open++;
    sockets.add(socket);
    socket.on("close", () => {
      connections.open--;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => state.server.listen(port, host, resolve));
  const address = state.server.address() as AddressInfo;
  state.port = address.port;
  state.url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return state;
}

function handle(state: TargetServer, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  state.counts.set(url.pathname, (state.counts.get(url.pathname) ?? 0) + 1);
  const source = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
  state.inFlight.now++;
  state.inFlight.peak = Math.max(state.inFlight.peak, state.inFlight.now);
  res.once("close", () => state.inFlight.now--);
  state.sources.set(source, (state.sources.get(source) ?? 0) + 1);
  const at = Date.now();
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString();
    if (state.log.length < 20_000) {
      state.log.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, at });
    }
    const respond = () => route(req, res, url, body);
    const wait = state.stallUntil - Date.now();
    if (wait > 0) setTimeout(respond, wait);
    else respond();
  });
}

function route(req: IncomingMessage, res: ServerResponse, url: URL, body: string): void {
  const send = (status: number, text: string, type = "text/plain") => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": Buffer.byteLength(text),
      "x-request-path": url.pathname,
    });
    res.end(text);
  };
  const path = url.pathname;
  if (path === "/hello") {
    send(200, "hello world");
  } else if (path === "/login" && req.method === "POST") {
    let user = "anonymous";
    try {
      user = JSON.parse(body).user ?? user;
    } catch {}
    send(200, JSON.stringify({ token: `t-${user}`, user: { id: user } }), "application/json");
  } else if (path === "/orders" && req.method === "POST") {
    const ok = /^Bearer t-.+/.test(req.headers.authorization ?? "");
    send(ok ? 200 : 401, ok ? '{"ok":true}' : '{"ok":false}', "application/json");
  } else if (path.startsWith("/status/")) {
    send(Number(path.slice(8)) || 500, "status");
  } else if (path === "/reset") {
    // Closes the connection without an answer, as a crashing server would.
    req.socket.destroy();
  } else if (path === "/slow") {
    setTimeout(() => send(200, "slow"), Number(url.searchParams.get("ms") ?? 1000));
  } else if (path === "/echo") {
    send(
      200,
      JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body }),
      "application/json",
    );
  } else if (path === "/cookie/set") {
    const q = url.searchParams;
    res.setHeader("set-cookie", `${q.get("name")}=${q.get("value")}; Path=${q.get("path") ?? "/"}`);
    send(200, "set");
  } else if (path === "/redirect") {
    res.writeHead(Number(url.searchParams.get("code") ?? 302), {
      location: url.searchParams.get("to") ?? "/hello",
      "content-length": 0,
    });
    res.end();
  } else if (path === "/compressed") {
    const as = url.searchParams.get("as") ?? "gzip";
    const text = JSON.stringify({ token: `z-${as}`, pad: "x".repeat(4000) });
    const accepted = String(req.headers["accept-encoding"] ?? "").includes(as);
    const packed = !accepted
      ? Buffer.from(text)
      : as === "br"
        ? brotliCompressSync(text)
        : as === "deflate"
          ? deflateSync(text)
          : gzipSync(text);
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": packed.length,
      ...(accepted ? { "content-encoding": as } : {}),
    });
    res.end(packed);
  } else {
    send(200, "ok");
  }
}
