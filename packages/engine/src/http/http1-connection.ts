import { connect as connectTcp, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { copyOf } from "./byte-copy.js";
import { codedError, type HeadAwareHandler, ProtocolError } from "./client-handler.js";
import { type ConnectionTarget, connectTlsSocket, tcpSource } from "./connection-target.js";
import { type NativeReader, NativeReads } from "./native-reads.js";
import { RequestWriter } from "./request-writer.js";
import { type ResponseListener, ResponseParser } from "./response-parser.js";
import type { BatchedWriter, WriteBatch } from "./write-batch.js";

/** What a connection tells its pool. */
export interface ConnectionOwner {
  /** The response is complete and the connection can carry another request. */
  released(connection: Http1Connection): void;
  /** The socket is gone (closed, failed, destroyed). */
  closed(connection: Http1Connection): void;
  /** A request on a kept-alive socket the server had already closed: send it again on a new one. */
  retry(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void;
}

/**
 * Plain-TCP reads land in this one buffer (Node's `onread`), whatever the connection: a read is
 * handled whole before the next, the parser reads its first bytes in place (no view is cut per
 * read) and copies what it carries over, and a handler copies the body bytes it keeps. Saves a
 * buffer allocated per read, and its garbage.
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const noop = () => {};

/**
 * One keep-alive socket with at most one request in flight. The request is written by its
 * RequestWriter, the response read by the incremental parser, and the handler called with
 * undici's legacy callbacks.
 */
export class Http1Connection implements ResponseListener, BatchedWriter, NativeReader {
  readonly socket: Socket;
  private readonly parser = new ResponseParser(this, true);
  private handler: Dispatcher.DispatchHandler | null = null;
  private options: Dispatcher.DispatchOptions | null = null;
  /** performance.now() past which the request in flight, or the connect, has taken too long. */
  deadline = Number.POSITIVE_INFINITY;
  /** When the connection last became idle. */
  idleSince = 0;
  /** performance.now() of the last read: the deadlines and idle time of a read count from it (one clock read a read). */
  readAt = 0;
  /** Idle time after which it closes: ours, shortened by the server's Keep-Alive hint. */
  idleTimeoutMs: number;
  private connected = false;
  /** performance.now() the socket was opened, its TCP connect ended, and it was ready (TLS done). */
  private readonly openedAt = performance.now();
  private tcpAt = 0;
  private readyAt = 0;
  /** When the request in flight was written, and its answer's first byte came. */
  private writtenAt = 0;
  private firstByteAt = 0;
  private requests = 0;
  private bytesRead = 0;
  private readingBody = false;
  /**
   * The handler whose response ended in this read (or close): it hears of it once the pool has the
   * connection back, so its next request may take the connection at once.
   */
  private completed: Dispatcher.DispatchHandler | null = null;
  private done = false;
  /** Reads land in SHARED_READ_BUFFER (plain TCP) rather than a buffer of their own (TLS). */
  private readonly sharedReads: boolean;
  /** The thread's NativeReads once they read it (plain TCP, where built), and its id with them. */
  private nativeReads: NativeReads | null = null;
  private nativeReadId = -1;
  private readonly writer: RequestWriter;
  private readonly abort = (reason?: Error) => this.fail(reason ?? codedError("UND_ERR_ABORTED", "aborted"));

  constructor(
    private readonly target: ConnectionTarget,
    private readonly owner: ConnectionOwner,
    keepAliveTimeoutMs: number,
    /** The thread's write batch, or null: each request written at once. */
    batch: WriteBatch | null = null,
  ) {
    this.idleTimeoutMs = keepAliveTimeoutMs;
    this.socket = target.https
      ? connectTlsSocket(target, ["http/1.1"])
      : connectTcp({
          host: target.host,
          port: target.port,
          lookup: target.lookup,
          ...tcpSource(target),
          onread: {
            buffer: SHARED_READ_BUFFER,
            callback: (bytes: number, buffer: Uint8Array) => {
              this.onSocketData(buffer as Buffer, 0, bytes);
              return true;
            },
          },
        });
    this.sharedReads = !target.https;
    this.writer = new RequestWriter(this.socket, target.hostHeader, batch, this);
    this.socket.setNoDelay(true);
    this.deadline = performance.now() + target.connectTimeoutMs;
    this.socket.once("connect", () => {
      this.tcpAt = performance.now();
    });
    this.socket.once(target.https ? "secureConnect" : "connect", () => {
      this.readyAt = performance.now();
      this.connected = true;
      // Before node:net starts reading it (it does after this event): a batch at a time instead.
      if (this.sharedReads) this.readNatively();
      this.deadline = this.handler ? this.requestDeadline() : Number.POSITIVE_INFINITY;
    });
    if (!this.sharedReads)
      this.socket.on("data", (chunk: Buffer) => this.onSocketData(chunk, 0, chunk.length));
    this.socket.on("error", (error) => this.onSocketGone(error));
    this.socket.on("close", () => this.onSocketGone(null));
  }

  get busy(): boolean {
    return this.handler !== null;
  }

  /** Writes the request; the handler hears of the response, or of the error. */
  send(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
    this.handler = handler;
    this.options = options;
    this.bytesRead = 0;
    this.readingBody = false;
    const aware = handler as HeadAwareHandler;
    if (aware.onRawHead === undefined)
      this.parser.expectResponse(options.method === "HEAD", aware.wantsHeaders ?? true);
    else this.parser.expectResponse(options.method === "HEAD", aware.headerStrings ?? false, true);
    this.requests++;
    handler.onConnect?.(this.abort);
    if (this.handler !== handler) return; // aborted at once
    let written: number;
    try {
      written = this.writer.write(options);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (!this.writer.waiting) this.wrote(performance.now());
    (handler as HeadAwareHandler).onRequestBytes?.(written);
  }

  /** The batch's turn: writes the request that waited for it, unless it ended meanwhile. */
  flushWrite(at: number): void {
    if (!this.writer.waiting) return;
    // It ended while it waited (failed, aborted, closed): nothing goes out.
    if (this.handler === null || this.done) {
      this.writer.drop();
      return;
    }
    this.writer.flush();
    this.wrote(at);
  }

  /** The request went out at `at`: its phases and its deadline count from there. */
  private wrote(at: number): void {
    this.writtenAt = at;
    // Not yet connected: the connect's deadline stands until it is (then this one is set).
    if (this.connected) this.deadline = at + (this.options?.headersTimeout ?? 300_000);
  }

  private requestDeadline(): number {
    return performance.now() + (this.options?.headersTimeout ?? 300_000);
  }

  /** Called by the pool's sweep: the deadline passed. */
  timedOut(): void {
    if (!this.connected) {
      this.fail(codedError("UND_ERR_CONNECT_TIMEOUT", "connect timed out"));
    } else if (this.handler !== null) {
      this.fail(
        this.readingBody
          ? codedError("UND_ERR_BODY_TIMEOUT", "the body timed out")
          : codedError("UND_ERR_HEADERS_TIMEOUT", "the response headers timed out"),
      );
    }
  }

  close(): void {
    this.done = true;
    this.parser.stop();
    this.dropSocket();
  }

  onNativeRead(bytes: Buffer, start: number, end: number): void {
    this.onSocketData(bytes, start, end);
  }

  onNativeReadEnd(error: Error | null): void {
    this.onSocketGone(error);
  }

  private readNatively(): void {
    const reads = NativeReads.forThread();
    const id = reads?.take(this.socket, this) ?? -1;
    if (id < 0) return;
    this.nativeReads = reads;
    this.nativeReadId = id;
  }

  /** Destroys the socket, its descriptor out of the thread's NativeReads first if they read it. */
  private dropSocket(): void {
    const reads = this.nativeReads;
    if (reads !== null) {
      this.nativeReads = null;
      // node:net destroyed it already (a failed write): its descriptor may be another's by now.
      if (this.socket.destroyed) reads.forgetClosed(this.nativeReadId);
      else reads.release(this.nativeReadId);
    }
    this.socket.destroy();
  }

  /**
   * Bytes `start`..`end` of `data` were read (SHARED_READ_BUFFER, a batch of NativeReads, or a
   * TLS read's own buffer).
   */
  private onSocketData(data: Buffer, start: number, end: number): void {
    if (this.handler === null) {
      // Bytes nobody asked for: the connection can no longer be trusted.
      this.close();
      return;
    }
    this.readAt = performance.now();
    if (this.bytesRead === 0) this.firstByteAt = this.readAt;
    this.bytesRead += end - start;
    const used = this.parser.execute(data, end, start);
    if (this.completed === null) return;
    // The pool has the connection back before the handler hears of the end: its next request may
    // take it at once. More than the response is bytes nobody asked for: the answer stands, the
    // socket does not. (Done: closed at the response's end, Connection: close.)
    if (!this.done) {
      if (used < end) this.close();
      else this.owner.released(this);
    }
    this.complete();
  }

  /** Tells the handler whose response ended that it is complete. */
  private complete(): void {
    const handler = this.completed;
    if (handler === null) return;
    this.completed = null;
    (handler as HeadAwareHandler).onEndedAt?.(this.readAt);
    handler.onComplete?.([]);
  }

  onResponseHead(
    status: number,
    statusText: string,
    rawHeaders: string[],
    headBytes: number,
    head: Buffer | null,
  ): void {
    const handler = this.handler;
    if (handler === null) return;
    this.readingBody = true;
    this.deadline = this.readAt + (this.options?.bodyTimeout ?? 300_000);
    // A server's `Keep-Alive: timeout=N` may shorten our idle time (a second early, as undici).
    const hint = this.parser.keepAliveHintS;
    if (hint >= 0) this.idleTimeoutMs = Math.min(this.idleTimeoutMs, Math.max(0, hint * 1000 - 1000));
    (handler as HeadAwareHandler).onHeadBytes?.(headBytes);
    if (head !== null) (handler as HeadAwareHandler).onRawHead?.(head);
    // Connect and TLS are the first request's: a reused connection's cost nothing.
    const opened = this.requests === 1;
    (handler as HeadAwareHandler).onPhases?.(
      opened ? this.tcpAt - this.openedAt : 0,
      opened && this.target.https ? this.readyAt - this.tcpAt : 0,
      this.readyAt,
      this.writtenAt,
      this.firstByteAt,
    );
    handler.onHeaders?.(status, rawHeaders as unknown as Buffer[], noop, statusText);
  }

  onResponseBody(bytes: Buffer, start: number, end: number): void {
    const handler = this.handler;
    if (handler === null) return;
    this.deadline = this.readAt + (this.options?.bodyTimeout ?? 300_000);
    const aware = handler as HeadAwareHandler;
    if (aware.onBodyBytes !== undefined) aware.onBodyBytes(bytes, start, end);
    // A handler of undici's kind may keep what it is given: a shared read is copied for it.
    else handler.onData?.(this.sharedReads ? copyOf(bytes, start, end) : bytes.subarray(start, end));
  }

  onResponseEnd(keepAlive: boolean): void {
    const handler = this.handler;
    if (handler === null) return;
    this.handler = null;
    this.options = null;
    this.deadline = Number.POSITIVE_INFINITY;
    this.completed = handler;
    if (!keepAlive) this.close();
  }

  onParseError(message: string): void {
    this.fail(new ProtocolError(message));
  }

  private onSocketGone(error: Error | null): void {
    if (this.handler !== null) {
      const options = this.options;
      const handler = this.handler;
      if (error === null && this.parser.finish()) {
        // A body read until close ended with the connection: the close is its last read.
        this.readAt = performance.now();
        this.complete();
      } else if (
        this.requests > 1 &&
        this.bytesRead === 0 &&
        !this.done &&
        options !== null &&
        IDEMPOTENT.has(options.method)
      ) {
        // The server closed the kept-alive socket as the request went out: nothing was answered.
        this.handler = null;
        this.options = null;
        this.owner.retry(options, handler);
      } else {
        this.fail(error ?? codedError("UND_ERR_SOCKET", "other side closed"));
      }
    }
    if (!this.done) {
      this.done = true;
      this.parser.stop();
      this.dropSocket();
    }
    this.owner.closed(this);
  }

  /** Ends the request in flight, if any, with `error` and drops the socket. */
  destroy(error: Error): void {
    this.fail(error);
  }

  private fail(error: Error): void {
    const handler = this.handler;
    const neverWritten = this.writer.drop();
    this.handler = null;
    this.options = null;
    this.deadline = Number.POSITIVE_INFINITY;
    this.close();
    if (neverWritten) (handler as HeadAwareHandler | null)?.onNeverWritten?.();
    handler?.onError?.(error);
  }
}
