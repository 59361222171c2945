import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createH2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import { createServer as createNetServer, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { catalogRoute } from "./catalog-routes.js";
import { DemoSockets } from "./demo-sockets.js";
import { type GreeterServer, startGreeter } from "./greeter.js";
import { type DemoRequest, type DemoResponse, sendJson, TooLargeError } from "./http-kit.js";
import { chatCompletions } from "./llm-stream.js";
import { Registry } from "./registry-routes.js";
import { shopRoute } from "./shop-routes.js";
import { ShopState } from "./shop-state.js";

export interface DemoOptions {
  /** @defaultValue 127.0.0.1 */
  host?: string;
  /** HTTP (1.1 and h2c) and WebSocket. @defaultValue 18080 (0: any free port) */
  port?: number;
  /** gRPC; null: none. @defaultValue 50051 */
  grpcPort?: number | null;
  /** The key `x-signature` (HMAC-SHA256 of an order's body) is checked with. @defaultValue "test-key" */
  signingKey?: string;
}

export interface RunningDemo {
  /** http://HOST:PORT */
  url: string;
  /** grpc://HOST:PORT, or null without gRPC. */
  grpcTarget: string | null;
  greeter: GreeterServer | null;
  close(): Promise<void>;
}

/** The bytes an HTTP/2 client with prior knowledge starts with (RFC 9113 §3.4); no HTTP/1.1 method starts so. */
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0");

/**
 * `socket` as a stream that gives `first` (already read) and then what the socket reads. HTTP/2
 * sessions read a plain socket's handle directly, past anything put back into its JS buffer: a
 * stream without a handle is read through JS, from its start.
 */
function replaying(socket: Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read: () => socket.resume(),
    write: (chunk, encoding, callback) => socket.write(chunk, encoding, callback),
    final: (callback) => socket.end(callback),
    destroy: (error, callback) => {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  duplex.push(first);
  socket.on("data", (data: Buffer) => {
    if (!duplex.push(data)) socket.pause();
  });
  socket.once("end", () => duplex.push(null));
  socket.once("close", () => duplex.destroy());
  socket.on("error", (error) => duplex.destroy(error));
  return duplex;
}

/**
 * The demo shop `volley demo` (and `volley start`) runs: a target for a first test that every
 * file in examples/ runs against with no failure. One port speaks HTTP/1.1, h2c (HTTP/2 without
 * TLS, told apart by its preface) and WebSocket; gRPC has a port of its own.
 */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const host = options.host ?? "127.0.0.1";
  const state = new ShopState();
  const registry = new Registry();
  const sockets = new DemoSockets(state);
  const shop = { state, signingKey: options.signingKey ?? "test-key" };
  const handle = (req: DemoRequest, res: DemoResponse) => {
    const url = new URL(req.url ?? "/", "http://demo");
    const route = async () => {
      if (await shopRoute(shop, req, res, url)) return;
      if (await catalogRoute(state, req, res, url)) return;
      if (await registry.route(req, res, url)) return;
      if (req.method === "POST" && url.pathname === "/v1/chat/completions") return chatCompletions(req, res);
      sendJson(req, res, 404, { error: `no route ${req.method} ${url.pathname}: GET / lists them` });
    };
    route().catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else if (error instanceof TooLargeError) sendJson(req, res, 413, { error: "bodies are at most 1 MiB" });
      else sendJson(req, res, 500, { error: (error as Error).message });
    });
  };
  const http1 = createHttpServer(
    { keepAliveTimeout: 30_000 },
    handle as (req: IncomingMessage, res: ServerResponse) => void,
  );
  http1.on("upgrade", (req, socket, head) => sockets.upgrade(req, socket, head));
  const h2c = createH2Server(handle as (req: Http2ServerRequest, res: Http2ServerResponse) => void);
  const open = new Set<Socket>();
  const listener = createNetServer((socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    socket.once("data", (first: Buffer) => {
      socket.pause();
      const h2 = first
        .subarray(0, H2_PREFACE.length)
        .equals(H2_PREFACE.subarray(0, Math.min(first.length, H2_PREFACE.length)));
      if (h2) {
        h2c.emit("connection", replaying(socket, first));
        return;
      }
      socket.unshift(first);
      http1.emit("connection", socket);
      socket.resume();
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port ?? 18080, host, () => resolve());
  });
  const address = listener.address() as { port: number };
  let greeter: GreeterServer | null = null;
  if (options.grpcPort !== null) {
    try {
      greeter = await startGreeter({ host, port: options.grpcPort ?? 50051 });
    } catch (error) {
      listener.close();
      throw error;
    }
  }
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    grpcTarget: greeter?.target ?? null,
    greeter,
    async close() {
      sockets.close();
      for (const socket of open) socket.destroy();
      await Promise.all([new Promise((resolve) => listener.close(resolve)), greeter?.close()]);
    },
  };
}
