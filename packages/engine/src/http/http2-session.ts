import { type ClientHttp2Session, connect as connectHttp2 } from "node:http2";
import { connect as connectTcp, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { TLSSocket } from "node:tls";
import { type ConnectionTarget, connectTlsSocket, tcpSource } from "./connection-target.js";
import { codedError, ProtocolError } from "./http1-connection.js";
import { bodyLength, type Http2Headers } from "./http2-headers.js";
import type { Http2Request, StreamCarrier } from "./http2-request.js";

/** What a session tells its pool. */
export interface SessionOwner {
  /** A stream slot came free (or the session became ready): it can carry a queued request. */
  slotFree(session: Http2Connection): void;
  /** The request object is free for another dispatch. */
  recycle(request: Http2Request): void;
  /** Send it again on any session. */
  retry(request: Http2Request): void;
  /**
   * The session is gone (closed, failed, told to go away and drained). `failure` is why, when it
   * failed before it ever took a stream (a refused connect, a TLS alert): what its waiting
   * requests fail with.
   */
  closed(session: Http2Connection, failure: Error | null): void;
}

/**
 * Flow-control windows sized for throughput: a stream may receive 1 MiB before it must wait for a
 * WINDOW_UPDATE, the session 16 MiB (HTTP/2's defaults, 64 KiB each, stall a large body on every
 * round trip).
 */
const STREAM_WINDOW = 1 << 20;
const SESSION_WINDOW = 16 << 20;
/** Streams a session may carry at once until the server's SETTINGS say (RFC 9113 suggests >= 100). */
const ASSUMED_STREAMS = 100;

/**
 * One HTTP/2 session (one TCP or TLS connection) of a pool, many streams at once: over TLS
 * with ALPN h2 and nothing else, or h2c with prior knowledge on plain TCP. It counts its streams
 * in flight against the server's SETTINGS_MAX_CONCURRENT_STREAMS, times its connect and TLS
 * handshake (the first request's phases), and fails or resends its requests when it goes.
 */
export class Http2Connection implements StreamCarrier {
  readonly session: ClientHttp2Session;
  /** Requests on a stream of this session, waiting for their answer (the sweep reads deadlines). */
  readonly inFlight = new Set<Http2Request>();
  /** Streams the server allows at once. */
  maxStreams = ASSUMED_STREAMS;
  /** Told to go away, closing, or gone: no new streams. */
  draining = false;
  /** When it last had no stream in flight. */
  idleSince = performance.now();
  /** performance.now() past which a connect that has not finished fails. */
  connectDeadline: number;
  private readonly openedAt = performance.now();
  private tcpAt = 0;
  private readyAt = 0;
  /** The request that opened the session: its phases include the connect and the handshake. */
  private opener: Http2Request | null = null;
  private openerChosen = false;
  /** The server's first SETTINGS came: until then its stream limit is unknown, and no stream opens. */
  private settled = false;
  private gone = false;

  constructor(
    private readonly target: ConnectionTarget,
    private readonly owner: SessionOwner,
    private readonly headers: Http2Headers,
  ) {
    this.connectDeadline = this.openedAt + target.connectTimeoutMs;
    const scheme = target.https ? "https" : "http";
    this.session = connectHttp2(`${scheme}://${target.hostHeader}`, {
      createConnection: () => this.openSocket(),
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      peerMaxConcurrentStreams: ASSUMED_STREAMS,
    });
    this.session.once("connect", () => {
      // Node says `connect` of a session destroyed while connecting too.
      if (this.session.destroyed) return;
      this.readyAt = performance.now();
      this.session.setLocalWindowSize(SESSION_WINDOW);
    });
    // Streams opened past a limit the server has not said yet would be refused: none open before.
    this.session.on("remoteSettings", (settings) => {
      this.maxStreams = settings.maxConcurrentStreams ?? ASSUMED_STREAMS;
      this.settled = true;
      this.connectDeadline = Number.POSITIVE_INFINITY;
      owner.slotFree(this);
    });
    // The server stops taking streams; those it took are answered, then the session closes.
    this.session.on("goaway", () => {
      this.draining = true;
    });
    this.session.on("error", (error) => this.end(error));
    this.session.on("close", () => this.end(null));
  }

  /** Streams it can still open now. */
  get room(): number {
    return this.draining || !this.settled ? 0 : this.maxStreams - this.inFlight.size;
  }

  /** Still connecting, or waiting for the server's first SETTINGS: it takes streams soon. */
  get connecting(): boolean {
    return !this.draining && !this.settled;
  }

  /** Opens a stream for the request; the request hears the rest. */
  start(request: Http2Request): void {
    const handler = request.handler;
    const options = request.options;
    if (handler === null || options === null) return;
    this.inFlight.add(request);
    request.carrier = this;
    if (!this.openerChosen) {
      this.openerChosen = true;
      this.opener = request;
    }
    handler.onConnect?.(request.abort);
    if (request.handler !== handler) return; // aborted at once
    try {
      const body = options.body as string | Uint8Array | null | undefined;
      const length = bodyLength(body);
      const stream = this.session.request(this.headers.of(options, length), {
        endStream: body === null || body === undefined,
      });
      request.carry(stream, this, body ?? null);
    } catch (error) {
      request.fail(error as Error);
    }
  }

  streamDone(request: Http2Request): void {
    if (!this.inFlight.delete(request)) return;
    if (this.inFlight.size === 0) this.idleSince = performance.now();
    if (!this.gone) this.owner.slotFree(this);
  }

  streamClosed(request: Http2Request): void {
    this.owner.recycle(request);
  }

  retry(request: Http2Request): void {
    this.owner.retry(request);
  }

  phasesFor(request: Http2Request): { connectMs: number; tlsMs: number; readyAt: number } {
    if (request !== this.opener || this.tcpAt === 0) return { connectMs: 0, tlsMs: 0, readyAt: this.readyAt };
    this.opener = null;
    return {
      connectMs: this.tcpAt - this.openedAt,
      tlsMs: this.target.https ? this.readyAt - this.tcpAt : 0,
      readyAt: this.readyAt,
    };
  }

  /** No new streams; closes once those in flight are answered. */
  close(): void {
    this.draining = true;
    if (!this.session.closed) this.session.close();
  }

  /** Fails the streams in flight (and, unsettled, the requests waiting for it) with `error`; closes now. */
  destroy(error: Error): void {
    this.end(error);
  }

  /** Called by the pool's sweep: the connect (to the server's first SETTINGS) took too long. */
  connectTimedOut(): void {
    if (!this.settled) this.destroy(codedError("UND_ERR_CONNECT_TIMEOUT", "connect timed out"));
  }

  private openSocket(): Socket | TLSSocket {
    const target = this.target;
    const socket = target.https
      ? connectTlsSocket(target, ["h2"])
      : connectTcp({ host: target.host, port: target.port, lookup: target.lookup, ...tcpSource(target) });
    socket.setNoDelay(true);
    socket.once("connect", () => {
      this.tcpAt = performance.now();
    });
    if (target.https) {
      // Node would send HTTP/2 to a server that chose HTTP/1.1: refuse before it does.
      (socket as TLSSocket).once("secureConnect", () => {
        const alpn = (socket as TLSSocket).alpnProtocol;
        if (alpn !== "h2") {
          this.destroy(new ProtocolError(`the server does not speak HTTP/2 (ALPN: ${alpn || "none"})`));
        }
      });
    }
    return socket;
  }

  private end(error: Error | null): void {
    if (this.gone) return;
    this.gone = true;
    this.draining = true;
    const failure = error ?? codedError("UND_ERR_SOCKET", "the server closed the HTTP/2 session");
    for (const request of [...this.inFlight]) request.fail(failure);
    if (!this.session.destroyed) this.session.destroy();
    this.owner.closed(this, this.settled ? null : failure);
  }
}
