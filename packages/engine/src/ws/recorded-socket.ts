import type { Agent } from "node:http";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import type { ErrorKind } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import type WebSocket from "ws";
import { classifyError, describeError } from "../http/classify-error.js";
import { RequestFailedError } from "../http/request-failed-error.js";
import type { ConnectionSettings } from "../network/connection-settings.js";
import type { ProxyRoute } from "../network/proxy-route.js";
import type { LocalSource } from "../network/source-addresses.js";

/** The ws library, loaded at the first socket: threads of runs without one never load it. */
let wsLibrary: Promise<typeof WebSocket> | null = null;
const loadWs = () => {
  wsLibrary ??= import("ws").then((module) => module.default);
  return wsLibrary;
};

/** ws's readyState values (the same in every WebSocket implementation). */
const OPEN = 1;
const CLOSED = 3;

/** Messages a socket keeps unread at most; older ones are dropped (they were counted). */
const MAX_UNREAD = 10_000;

/** A message as it arrived: its text (or bytes) and when (performance.now ms). */
interface Arrival {
  data: string | Buffer;
  at: number;
}

/** What an awaited message must be: a substring, a pattern, or a test. */
export type MessageMatch = string | RegExp | ((message: string | Buffer) => boolean) | undefined;

export interface SocketOpenOptions {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** How the socket connects (hosts, DNS, TLS settings of its server). */
  network: ConnectionSettings;
  /** The handshake's name: its latency, status, messages and bytes. */
  recorder: RequestRecorder;
  /** performance.now() the handshake's latency counts from (an arrival-rate schedule). @defaultValue now */
  startedAt?: number;
  /** Aborts the handshake (counted as `aborted`) when it fires first. */
  signal?: AbortSignal;
}

/**
 * One CONNECT agent per proxy (the proxy's own name resolved by the system), loaded the first
 * time a socket goes through one (CommonJS, so sync).
 */
const proxyAgents = new Map<string, Agent>();
const require = createRequire(import.meta.url);
function proxyAgent(proxy: ProxyRoute): Agent {
  let agent = proxyAgents.get(proxy.href);
  if (agent === undefined) {
    const { HttpsProxyAgent } = require("https-proxy-agent") as typeof import("https-proxy-agent");
    agent = new HttpsProxyAgent(proxy.href);
    proxyAgents.set(proxy.href, agent);
  }
  return agent;
}

function localSource(source: LocalSource | undefined): { localAddress?: string; localPort?: number } {
  return source ? { localAddress: source.address, localPort: source.port } : {};
}

function matches(match: MessageMatch, data: string | Buffer): boolean {
  if (match === undefined) return true;
  if (typeof match === "string")
    return (typeof data === "string" ? data : data.toString("utf8")).includes(match);
  if (match instanceof RegExp) {
    match.lastIndex = 0;
    return match.test(typeof data === "string" ? data : data.toString("utf8"));
  }
  return Boolean(match(data));
}

/**
 * One WebSocket of a VU, measured: the handshake is a request (status 101, or the refusal's
 * status), every message in or out is counted with its bytes under the handshake's name, and an
 * awaited message is timed from the last send. Unread messages wait in order, bounded.
 */
export class RecordedSocket {
  private readonly socket: WebSocket;
  private readonly unread: Arrival[] = [];
  /** A `next` waiting: what it matches, and how it ends (each end records at once, never later). */
  private waiter: {
    match: MessageMatch;
    resolve: (a: Arrival) => void;
    reject: (e: RequestFailedError) => void;
  } | null = null;
  private lastSendAt: number;
  private closedWith: RequestFailedError | null = null;
  private readonly closed: Promise<void>;

  private constructor(
    socket: WebSocket,
    private readonly recorder: RequestRecorder,
    openedAt: number,
  ) {
    this.socket = socket;
    this.lastSendAt = openedAt;
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      const arrival = { data: isBinary ? data : data.toString("utf8"), at: performance.now() };
      recorder.recordMessage(false, data.length);
      if (this.waiter && matches(this.waiter.match, arrival.data)) {
        const { resolve } = this.waiter;
        this.waiter = null;
        resolve(arrival);
        return;
      }
      // Unmatched while a message is awaited: skipped, as `next` skips them in the queue.
      if (this.waiter) return;
      this.unread.push(arrival);
      if (this.unread.length > MAX_UNREAD) this.unread.shift();
    });
    this.closed = new Promise((resolve) => {
      socket.once("close", (code: number) => {
        this.closedWith = new RequestFailedError(
          "closed",
          `the socket closed (code ${code}) before a matching message`,
        );
        this.waiter?.reject(this.closedWith);
        this.waiter = null;
        resolve();
      });
    });
    // After the handshake an error ends in "close": nothing more to record here.
    socket.on("error", () => {});
  }

  /** Opens a socket; the handshake is recorded whatever its outcome. Rejects with a RequestFailedError. */
  static async open(options: SocketOpenOptions): Promise<RecordedSocket> {
    const Ws = await loadWs();
    // Aborted while the library loaded: nothing was sent, nothing is counted.
    if (options.signal?.aborted) throw new RequestFailedError("aborted", "aborted before the handshake");
    const started =
      options.startedAt !== undefined && options.startedAt >= 0 ? options.startedAt : performance.now();
    const url = new URL(options.url);
    const secure = url.protocol === "wss:";
    const server = options.network.forServer(
      url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
      Number(url.port) || (secure ? 443 : 80),
      secure,
    );
    const socket = new Ws(options.url, {
      headers: options.headers,
      handshakeTimeout: options.timeoutMs,
      perMessageDeflate: false,
      ...(server.proxy
        ? { agent: proxyAgent(server.proxy) }
        : { lookup: server.lookup, ...localSource(server.localAddress?.()) }),
      ...(secure ? server.tls : {}),
      // Through a tunnel the TLS socket is not told the host: check the certificate against it.
      ...(secure &&
        server.proxy && {
          checkServerIdentity: (_host: string, cert: PeerCertificate) =>
            checkServerIdentity(server.tls.servername ?? url.hostname.replace(/^\[|\]$/g, ""), cert),
        }),
    });
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (kind: ErrorKind, message: string, status = 0) => {
        if (settled) return;
        settled = true;
        options.recorder.record((performance.now() - started) * 1000, status, 0, 0, kind, message);
        socket.terminate();
        reject(new RequestFailedError(kind, message));
      };
      socket.once("unexpected-response", (_request, response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        fail("status", `the handshake was refused: ${status} ${response.statusMessage ?? ""}`.trim(), status);
      });
      socket.once("error", (error: Error) => {
        const timedOut = /handshake has timed out/i.test(error.message);
        fail(timedOut ? "timeout" : classifyError(error), describeError(error));
      });
      socket.once("close", () => fail("closed", "the socket closed during the handshake"));
      const abort = () => fail("aborted", "aborted at the end of gracefulStop");
      if (options.signal?.aborted) abort();
      options.signal?.addEventListener("abort", abort, { once: true });
      socket.once("open", () => {
        options.signal?.removeEventListener("abort", abort);
        if (settled) return;
        settled = true;
        const now = performance.now();
        options.recorder.record((now - started) * 1000, 101, 0, 0);
        resolve(new RecordedSocket(socket, options.recorder, now));
      });
    });
  }

  get isOpen(): boolean {
    return this.socket.readyState === OPEN;
  }

  send(data: string | Uint8Array): void {
    if (!this.isOpen) throw new RequestFailedError("closed", "send on a socket that is not open");
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    this.lastSendAt = performance.now();
    this.recorder.recordMessage(true, bytes);
    this.socket.send(data);
  }

  /**
   * The next message that matches (earlier ones that do not are skipped). When `recorder` is
   * given, the time from the last send to its arrival is recorded there as a request, and a
   * timeout or a close as its failure.
   */
  next(match: MessageMatch, timeoutMs: number, recorder: RequestRecorder | null): Promise<string | Buffer> {
    const since = this.lastSendAt;
    // Recorded the moment the exchange ends (an abort's record must make the slice's last batch).
    const answered = (arrival: Arrival) => {
      recorder?.record(Math.max(0, arrival.at - since) * 1000, 0, 0, 0);
      return arrival.data;
    };
    const failed = (failure: RequestFailedError) => {
      const message = failure.reason;
      recorder?.record((performance.now() - since) * 1000, 0, 0, 0, failure.kind, message);
      return failure;
    };
    while (this.unread.length > 0) {
      const arrival = this.unread.shift() as Arrival;
      if (matches(match, arrival.data)) return Promise.resolve(answered(arrival));
    }
    if (this.closedWith) return Promise.reject(failed(this.closedWith));
    if (this.waiter)
      return Promise.reject(new TypeError("ws.next: another next() on this socket is waiting"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(failed(new RequestFailedError("timeout", `no matching message within ${timeoutMs} ms`)));
      }, timeoutMs);
      this.waiter = {
        match,
        resolve: (arrival) => {
          clearTimeout(timer);
          resolve(answered(arrival));
        },
        reject: (failure) => {
          clearTimeout(timer);
          reject(failed(failure));
        },
      };
    });
  }

  /** Closes politely (code 1000) and waits for the close, at most a second, then cuts it. */
  async close(): Promise<void> {
    if (this.socket.readyState === CLOSED) return;
    this.socket.close(1000);
    const cut = setTimeout(() => this.socket.terminate(), 1000);
    await this.closed;
    clearTimeout(cut);
  }

  /** Ends the socket now (a stop): a message awaited on it fails as `aborted`. */
  terminate(): void {
    this.waiter?.reject(new RequestFailedError("aborted", "the iteration ended while a message was awaited"));
    this.waiter = null;
    this.socket.terminate();
  }
}
