import { createRequire } from "node:module";
import { ConfigError } from "@volley/protocol";
import type { Dispatcher } from "undici";
import type { ProxyRoute } from "../network/proxy-route.js";
import { Http1Pool } from "./http1-pool.js";
import { Http2Pool } from "./http2-pool.js";
import type { PoolOptions } from "./pool-options.js";
import type { TracedDispatchOptions } from "./request-head.js";

/** What a VU needs of a connection pool: undici's dispatch with the legacy handler, and close. */
export interface RequestDispatcher {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean;
  /** No new requests; resolves once the ones in flight are answered and every socket is closed. */
  close(): Promise<void>;
  /**
   * Its connection is back in the pool before a handler hears `onComplete` (Volley's HTTP/1.1
   * client), so the next request may be dispatched from `onComplete` itself; the others want the
   * stack unwound first (a microtask), or the next request would find the connection still taken.
   */
  readonly releasesBeforeComplete?: boolean;
}

/**
 * Options of the one connection pool a thread uses for an origin: what every pool is made with
 * (`PoolOptions`: sockets, keep-alive and connect times, the server's connect settings, the
 * write batch), the origin, and which protocol and client serve it.
 */
export interface HttpPoolOptions extends PoolOptions {
  /** Origin of the target, e.g. "http://127.0.0.1:8080". */
  origin: string;
  /** "1.1" (default), "2" (HTTP/2 over TLS) or "2c" (HTTP/2 over plain TCP). */
  version?: "1.1" | "2" | "2c";
  /** The client: Volley's own (default: HTTP/1.1 and HTTP/2 framed by hand) or undici's. */
  client?: "volley" | "undici";
}

/** A pool's option that cannot be used: a ConfigError naming the field. */
export class InvalidOptionError extends ConfigError {
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = "InvalidOptionError";
  }
}

/** HTTP/2 streams per session before undici queues requests for another (`client: undici`, proxies). */
const H2_STREAMS = 100;

// undici is required when a thread first makes one of its pools (HTTP/2, or `client: undici`),
// not at start: the default HTTP/1.1 client is Volley's own, and loading undici took 70-90 ms of
// every engine thread's start (a thread that begins late drops what fell due). CommonJS, so sync.
const require = createRequire(import.meta.url);
let undiciModule: typeof import("undici") | null = null;
function undici(): typeof import("undici") {
  undiciModule ??= require("undici") as typeof import("undici");
  return undiciModule;
}

/**
 * undici's `connect` option for a pool: what it hands to net.connect/tls.connect (lookup, secure
 * context, servername...), or, with `http.localAddresses`, a connector that gives each new
 * socket the next source address (undici's own takes one fixed address).
 */
function undiciConnect(
  options: HttpPoolOptions,
  protocol: { allowH2?: boolean; useH2c?: boolean } = {},
): import("undici").buildConnector.BuildOptions | import("undici").buildConnector.connector {
  const connect = {
    timeout: options.connectTimeoutMs,
    ...(options.server && { lookup: options.server.lookup, ...options.server.tls }),
    ...protocol,
  } as import("undici").buildConnector.BuildOptions;
  const next = options.server?.localAddress;
  if (next === undefined) return connect;
  // undici's connector takes a fixed local port among its options: one per connection, made
  // when a session opens (a few per thread).
  return (opts, callback) => {
    const source = next();
    undici().buildConnector({ ...connect, localPort: source.port } as typeof connect)(
      { ...opts, localAddress: source.address },
      callback,
    );
  };
}

/**
 * One pool per origin per thread: keep-alive sockets are reused by every VU of the thread, idle
 * ones close after keepAliveTimeout, and `close()` at the end of a run closes them all. Volley's
 * own clients carry the requests unless `client: "undici"`: HTTP/1.1 and HTTP/2 (over TLS, or
 * h2c over plain TCP) written and parsed by hand, HTTP/2's VUs multiplexed over a few sessions
 * (`connections` of them). A forward proxy goes through undici's ProxyAgent.
 */
export function createHttpPool(options: HttpPoolOptions): RequestDispatcher {
  if (!Number.isInteger(options.connections) || options.connections < 1) {
    throw new InvalidOptionError("connections", `must be a positive integer, got ${options.connections}`);
  }
  if (!(options.keepAliveTimeoutMs > 0)) {
    throw new InvalidOptionError("keepAliveTimeoutMs", `must be positive, got ${options.keepAliveTimeoutMs}`);
  }
  // h2c speaks HTTP/2 from the first byte to the server itself: no proxy carries that.
  if (options.server?.proxy && options.version !== "2c") return proxiedPool(options, options.server.proxy);
  const h2 = options.version === "2" || options.version === "2c";
  if (h2 && options.client !== "undici") return new Http2Pool(options.origin, options);
  if (h2) {
    return new (undici().Pool)(options.origin, {
      connections: options.connections,
      allowH2: true,
      maxConcurrentStreams: H2_STREAMS,
      // undici caps a session's streams in flight by `pipelining` too (1 by default).
      pipelining: H2_STREAMS,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      keepAliveMaxTimeout: options.keepAliveTimeoutMs,
      // h2c: the connector speaks HTTP/2 from the first byte on a plain socket (prior knowledge).
      connect: undiciConnect(options, { allowH2: true, ...(options.version === "2c" && { useH2c: true }) }),
    });
  }
  if (options.client === "undici") {
    return new (undici().Pool)(options.origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // A server's Keep-Alive hint may shorten, never lengthen, the idle time we chose.
      keepAliveMaxTimeout: options.keepAliveTimeoutMs,
      keepAliveTimeoutThreshold: Math.min(1000, options.keepAliveTimeoutMs / 2),
      connect: undiciConnect(options),
    });
  }
  return new Http1Pool(options.origin, options);
}

/**
 * An origin reached through a forward proxy: undici's ProxyAgent, CONNECT for https (the
 * origin's TLS settings inside the tunnel, HTTP/2 by ALPN when asked) and the absolute form for
 * plain http, over `connections` sockets kept alive like any pool's.
 */
function proxiedPool(options: HttpPoolOptions, proxy: ProxyRoute): RequestDispatcher {
  const h2 = options.version === "2";
  const agent = new (undici().ProxyAgent)({
    uri: proxy.href,
    proxyTunnel: new URL(options.origin).protocol === "https:",
    connections: options.connections,
    ...(h2 ? { allowH2: true, maxConcurrentStreams: H2_STREAMS, pipelining: H2_STREAMS } : { pipelining: 1 }),
    keepAliveTimeout: options.keepAliveTimeoutMs,
    keepAliveMaxTimeout: options.keepAliveTimeoutMs,
    requestTls: { timeout: options.connectTimeoutMs, ...options.server?.tls, ...(h2 && { allowH2: true }) },
    proxyTls: { timeout: options.connectTimeoutMs, ...(options.server && { lookup: options.server.lookup }) },
  } as import("undici").ProxyAgent.Options);
  const origin = options.origin;
  return {
    dispatch: (dispatch, handler) => agent.dispatch(withTraceparent(dispatch, origin), settledOnce(handler)),
    close: () => agent.close(),
  };
}

/** undici takes a request's `traceparent` (`http.tracing`) among its headers, not beside them. */
function withTraceparent(dispatch: TracedDispatchOptions, origin: string): Dispatcher.DispatchOptions {
  const { traceparent, ...rest } = dispatch;
  if (traceparent === undefined) return { ...rest, origin };
  const headers = rest.headers;
  if (headers !== null && headers !== undefined && !Array.isArray(headers)) {
    return { ...rest, origin, headers: { ...(headers as Record<string, string>), traceparent } };
  }
  return {
    ...rest,
    origin,
    headers: [...((headers as string[] | null | undefined) ?? []), "traceparent", traceparent],
  };
}

/**
 * The handler, told of one ending only: undici's plain-HTTP proxy wrapper reports a 407 as an
 * error and then lets the response complete as well, which would count the request twice.
 */
function settledOnce(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
  let settled = false;
  const wrapped: Dispatcher.DispatchHandler = {
    onConnect: (abort) => handler.onConnect?.(abort),
    onHeaders: (status, headers, resume, statusText) =>
      settled ? true : (handler.onHeaders?.(status, headers, resume, statusText) ?? true),
    onData: (chunk) => (settled ? true : (handler.onData?.(chunk) ?? true)),
    onComplete: (trailers) => {
      if (settled) return;
      settled = true;
      handler.onComplete?.(trailers);
    },
    onError: (error) => {
      if (settled) return;
      settled = true;
      handler.onError?.(error);
    },
  };
  return wrapped;
}

/** Sessions an HTTP/2 pool opens for `vus` VUs: `maxConnections`, or one per 100 streams. */
export function h2Sessions(vus: number, maxConnections: number | undefined): number {
  return maxConnections ?? Math.max(1, Math.ceil(vus / H2_STREAMS));
}
