import { connect as connectTcp, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { TLSSocket } from "node:tls";
import { codedError, ProtocolError } from "./client-handler.js";
import { type ConnectionTarget, connectTlsSocket, tcpSource } from "./connection-target.js";
import { type FrameListener, FrameReader } from "./http2-frame-reader.js";
import {
  clientPreface,
  DEFAULT_WINDOW,
  ERROR_CODE,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  frame,
  MAX_WINDOW,
  rstStream,
  windowUpdate,
  writeFrameHeader,
} from "./http2-frames.js";
import { bodyLength, type Http2Headers } from "./http2-headers.js";
import type { Http2Request, StreamCarrier } from "./http2-request.js";
import { Http2Streams } from "./http2-streams.js";

/** What a session tells its pool. */
export interface SessionOwner {
  /** A stream slot came free (or the session became ready): it can carry a queued request. */
  slotFree(session: Http2Connection): void;
  recycle(request: Http2Request): void;
  /** Send it again on any session. */
  retry(request: Http2Request): void;
  /**
   * The session is gone. `failure` is why, when it failed before it ever took a stream (a
   * refused connect, a TLS alert): what its waiting requests fail with.
   */
  closed(session: Http2Connection, failure: Error | null): void;
}

/** A stream may receive 1 MiB before it must wait for a WINDOW_UPDATE, the session 16 MiB. */
const STREAM_WINDOW = 1 << 20;
const SESSION_WINDOW = 16 << 20;
/** Streams a session may carry at once until the server's SETTINGS say (RFC 9113 suggests >= 100). */
const ASSUMED_STREAMS = 100;
/**
 * Frames queued in one read are written when the read is handled, or sooner, every this many
 * requests: the server starts on the first ones while the client still handles the rest.
 */
const FLUSH_EVERY = 16;
/** The last client stream id (2^31 - 1): past it the session takes no new stream. */
const LAST_STREAM_ID = 2 ** 31 - 1;

/**
 * One HTTP/2 connection of Volley's client, framed by hand on a TCP or TLS socket (ALPN h2;
 * h2c with prior knowledge): the preface and SETTINGS, HPACK (http2-streams.ts reads the
 * frames of streams), flow control both ways, PING, GOAWAY. Requests' HEADERS frames are
 * batched into one write per read handled. It counts streams in flight against the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS and fails or resends its requests when it goes.
 */
export class Http2Connection implements StreamCarrier {
  /** Requests waiting for their answer (the sweep reads deadlines). */
  readonly inFlight = new Set<Http2Request>();
  maxStreams = ASSUMED_STREAMS;
  /** Told to go away, closing, or gone: no new streams. */
  draining = false;
  idleSince = performance.now();
  /** performance.now() past which a connect (to the server's first SETTINGS) fails. */
  connectDeadline: number;
  /** Send windows: the session's, and each new stream's (the server's INITIAL_WINDOW_SIZE). */
  sendWindow = DEFAULT_WINDOW;
  streamWindow = DEFAULT_WINDOW;
  /** The largest frame the server takes. */
  maxFrame = 16_384;
  readonly socket: Socket | TLSSocket;
  private readonly streams: Http2Streams;
  private readonly reader: FrameReader;
  private readonly openedAt = performance.now();
  private tcpAt = 0;
  private readyAt = 0;
  private opener: Http2Request | null = null;
  private openerChosen = false;
  /** The server's first SETTINGS came: until then its stream limit is unknown, and no stream opens. */
  private settled = false;
  private gone = false;
  private nextStreamId = 1;
  private out: Buffer[] = [];
  private queuedRequests = 0;
  private reading = false;
  private flushScheduled = false;
  private readonly flushSoon = () => {
    this.flushScheduled = false;
    this.flush();
  };

  constructor(
    private readonly target: ConnectionTarget,
    private readonly owner: SessionOwner,
    private readonly headers: Http2Headers,
  ) {
    this.connectDeadline = this.openedAt + target.connectTimeoutMs;
    this.streams = new Http2Streams(this, STREAM_WINDOW, SESSION_WINDOW);
    this.reader = new FrameReader(this.streams.onFrame as FrameListener);
    this.socket = target.https
      ? connectTlsSocket(target, ["h2"])
      : connectTcp({ host: target.host, port: target.port, lookup: target.lookup, ...tcpSource(target) });
    const socket = this.socket;
    socket.setNoDelay(true);
    socket.once("connect", () => {
      this.tcpAt = performance.now();
    });
    socket.once(target.https ? "secureConnect" : "connect", () => {
      const alpn = (socket as TLSSocket).alpnProtocol;
      if (target.https && alpn !== "h2") {
        this.end(new ProtocolError(`the server does not speak HTTP/2 (ALPN: ${alpn || "none"})`));
        return;
      }
      this.readyAt = performance.now();
      this.queue(clientPreface(STREAM_WINDOW, SESSION_WINDOW));
    });
    socket.on("data", (chunk: Buffer) => this.onSocketData(chunk));
    socket.on("error", (error) => this.end(error));
    socket.on("close", () => this.end(null));
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
    request.streamId = 0;
    if (!this.openerChosen) {
      this.openerChosen = true;
      this.opener = request;
    }
    handler.onConnect?.(request.abort);
    if (request.handler !== handler) return; // aborted at once
    try {
      const body = options.body as string | Uint8Array | null | undefined;
      const length = bodyLength(body);
      const block = this.headers.block(options, length, this.target);
      const id = this.nextStreamId;
      this.nextStreamId += 2;
      if (this.nextStreamId > LAST_STREAM_ID) this.draining = true;
      this.writeHeaders(id, block, length === 0);
      this.streams.openStream(id, request);
      request.opened(this, id, this.streamWindow);
      if (length > 0) {
        request.body = typeof body === "string" ? Buffer.from(body) : Buffer.from(body as Uint8Array);
        request.bodyAt = 0;
        this.streams.sendBody(request);
      }
    } catch (error) {
      request.fail(error as Error);
    }
  }

  /** A HEADERS frame (and CONTINUATIONs past the server's frame size) for a new stream. */
  private writeHeaders(id: number, block: Buffer, endStream: boolean): void {
    const end = endStream ? FLAG.END_STREAM : 0;
    if (block.length <= this.maxFrame) {
      const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
      writeFrameHeader(head, 0, block.length, FRAME.HEADERS, FLAG.END_HEADERS | end, id);
      this.out.push(head, block);
    } else {
      for (let at = 0; at < block.length; at += this.maxFrame) {
        const part = block.subarray(at, at + this.maxFrame);
        const last = at + this.maxFrame >= block.length ? FLAG.END_HEADERS : 0;
        this.out.push(
          frame(at === 0 ? FRAME.HEADERS : FRAME.CONTINUATION, (at === 0 ? end : 0) | last, id, part),
        );
      }
    }
    if (++this.queuedRequests >= FLUSH_EVERY) this.flush();
    else this.scheduleFlush();
  }

  streamDone(request: Http2Request, cancel: boolean): void {
    if (request.streamId !== 0 && this.streams.close(request.streamId) && cancel && !this.gone) {
      this.queue(rstStream(request.streamId, ERROR_CODE.CANCEL));
    }
    if (!this.inFlight.delete(request)) return;
    if (this.inFlight.size === 0) {
      this.idleSince = performance.now();
      // Told to go away (or past its last stream id): done once its last stream is.
      if (this.draining && !this.gone) this.close();
    }
    if (!this.gone) this.owner.slotFree(this);
  }

  retry(request: Http2Request): void {
    this.owner.retry(request);
  }

  recycle(request: Http2Request): void {
    this.owner.recycle(request);
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

  /** The server's SETTINGS were applied (the first make the session ready). */
  settingsApplied(): void {
    if (!this.settled) {
      this.settled = true;
      this.connectDeadline = Number.POSITIVE_INFINITY;
    }
    this.owner.slotFree(this);
  }

  /** The server goes away: no new streams; the session ends once its last stream does. */
  goneAway(): void {
    this.draining = true;
    if (this.inFlight.size === 0) this.close();
  }

  /** A frame to send with the next write. */
  queue(bytes: Buffer): void {
    this.out.push(bytes);
    this.scheduleFlush();
  }

  /** No new streams; closes once those in flight are answered. */
  close(): void {
    this.draining = true;
    if (this.inFlight.size > 0 || this.gone) return;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(Math.max(0, this.nextStreamId - 2), 0);
    this.queue(frame(FRAME.GOAWAY, 0, 0, payload));
    this.flush();
    this.socket.end();
  }

  /** Fails the streams in flight (and, unsettled, the requests waiting for it) with `error`; closes now. */
  destroy(error: Error): void {
    this.end(error);
  }

  /** The server broke HTTP/2: GOAWAY with `code`, and everything on the session fails. */
  connectionError(code: number, message: string): void {
    if (this.gone) return;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(code, 4);
    this.queue(frame(FRAME.GOAWAY, 0, 0, payload));
    this.flush();
    this.end(new ProtocolError(`HTTP/2: ${message}`));
  }

  /** Called by the pool's sweep: the connect (to the server's first SETTINGS) took too long. */
  connectTimedOut(): void {
    if (!this.settled) this.destroy(codedError("UND_ERR_CONNECT_TIMEOUT", "connect timed out"));
  }

  /** The session window and each stream's given back as the body bytes arrive. */
  giveBack(streamId: number, increment: number): void {
    if (increment > 0 && increment <= MAX_WINDOW) this.queue(windowUpdate(streamId, increment));
  }

  private onSocketData(chunk: Buffer): void {
    this.reading = true;
    try {
      this.reader.push(chunk);
    } catch (error) {
      this.connectionError(ERROR_CODE.FRAME_SIZE_ERROR, (error as Error).message);
    }
    this.reading = false;
    this.flush();
  }

  private scheduleFlush(): void {
    if (this.reading || this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(this.flushSoon);
  }

  private flush(): void {
    this.queuedRequests = 0;
    const out = this.out;
    if (out.length === 0 || this.gone || this.readyAt === 0) return;
    this.out = [];
    this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
  }

  private end(error: Error | null): void {
    if (this.gone) return;
    this.gone = true;
    this.draining = true;
    const failure = error ?? codedError("UND_ERR_SOCKET", "the server closed the HTTP/2 session");
    for (const request of [...this.inFlight]) request.fail(failure, false);
    this.socket.destroy();
    this.owner.closed(this, this.settled ? null : failure);
  }
}
