import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { codedError, type HeadAwareHandler } from "./client-handler.js";
import type { HeaderSelection } from "./response-parser.js";

/** What a request tells the session that carries it. */
export interface StreamCarrier {
  /** The exchange is over (answered or failed); `cancel`: its stream is still open, reset it. */
  streamDone(request: Http2Request, cancel: boolean): void;
  /** Not processed by the server: send it again, on any session. */
  retry(request: Http2Request): void;
  /** The request object may carry another dispatch. */
  recycle(request: Http2Request): void;
  /** The phases of this request's connection, if it was the one that opened it. */
  phasesFor(request: Http2Request): { connectMs: number; tlsMs: number; readyAt: number };
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const noop = () => {};

/**
 * One request on an HTTP/2 stream of Volley's client, reused for request after request of its
 * pool (a free list): the handler's undici callbacks from the frames the session reads, its
 * stream's flow-control state, its deadline (checked by the pool's sweep) and its abort.
 */
export class Http2Request {
  handler: Dispatcher.DispatchHandler | null = null;
  options: Dispatcher.DispatchOptions | null = null;
  carrier: StreamCarrier | null = null;
  /** Its stream, 0 before it has one. */
  streamId = 0;
  /** performance.now() past which the request has taken too long. */
  deadline = Number.POSITIVE_INFINITY;
  /** Sent again once after a refused stream; never twice. */
  retried = false;
  /** Its response head came (later HEADERS are trailers). */
  answered = false;
  /** What the server still lets it send on its stream (flow control), and the body not yet sent. */
  sendWindow = 0;
  body: Buffer | null = null;
  bodyAt = 0;
  /** Body bytes received and not yet given back by a WINDOW_UPDATE of the stream. */
  unacked = 0;
  private writtenAt = 0;
  readonly abort = (reason?: Error) => this.fail(reason ?? codedError("UND_ERR_ABORTED", "aborted"));

  /** Takes a dispatch: the next session to start it carries it. */
  take(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
    this.options = options;
    this.handler = handler;
    this.retried = false;
  }

  /** The response headers its handler reads: none, some or all. */
  get wantsHeaders(): HeaderSelection {
    return (this.handler as HeadAwareHandler | null)?.wantsHeaders ?? true;
  }

  /** It has stream `streamId` and its HEADERS are written. */
  opened(carrier: StreamCarrier, streamId: number, sendWindow: number): void {
    this.carrier = carrier;
    this.streamId = streamId;
    this.sendWindow = sendWindow;
    this.answered = false;
    this.unacked = 0;
    this.writtenAt = performance.now();
    this.deadline = this.writtenAt + (this.options?.headersTimeout ?? 300_000);
  }

  /** The deadline passed (the pool's sweep). */
  timedOut(): void {
    this.fail(
      this.answered
        ? codedError("UND_ERR_BODY_TIMEOUT", "the body timed out")
        : codedError("UND_ERR_HEADERS_TIMEOUT", "the response headers timed out"),
    );
  }

  response(status: number, rawHeaders: string[]): void {
    const handler = this.handler;
    if (handler === null || this.carrier === null) return;
    const firstByteAt = performance.now();
    this.answered = true;
    this.deadline = firstByteAt + (this.options?.bodyTimeout ?? 300_000);
    const phases = this.carrier.phasesFor(this);
    // No head bytes on the wire to count (HPACK): the estimate from the headers read, as undici's.
    (handler as HeadAwareHandler).onPhases?.(
      phases.connectMs,
      phases.tlsMs,
      phases.readyAt,
      this.writtenAt,
      firstByteAt,
    );
    handler.onHeaders?.(status, rawHeaders as unknown as Buffer[], noop, "");
  }

  data(chunk: Buffer): void {
    const handler = this.handler;
    if (handler === null) return;
    this.deadline = performance.now() + (this.options?.bodyTimeout ?? 300_000);
    handler.onData?.(chunk);
  }

  /** The server ended the stream: the answer is whole (the session has closed the stream). */
  end(): void {
    const handler = this.handler;
    if (handler === null) return;
    this.finish(false);
    handler.onComplete?.([]);
  }

  /**
   * The server reset the stream (the session has closed it), or went away before it: a refused
   * stream, or one past GOAWAY's last stream, did nothing and goes again once (any method, then:
   * RFC 9113 §8.7); any other reset fails the request.
   */
  reset(code: number, unprocessed: boolean): void {
    const handler = this.handler;
    const carrier = this.carrier;
    if (handler === null || carrier === null) return;
    const refused = code === 7 && !this.answered && IDEMPOTENT.has(this.options?.method ?? "");
    if (!this.retried && (unprocessed || refused)) {
      carrier.streamDone(this, false);
      this.carrier = null;
      this.retried = true;
      carrier.retry(this);
      return;
    }
    this.fail(codedError("UND_ERR_SOCKET", `the server reset the stream (HTTP/2 error code ${code})`), false);
  }

  /** Ends the request with `error` unless it has ended already; `cancel`: reset its open stream. */
  fail(error: Error, cancel = true): void {
    const handler = this.handler;
    if (handler === null) return;
    this.finish(cancel);
    handler.onError?.(error);
  }

  /** Nothing of this request is needed any more: the session forgets it, the pool reuses it. */
  private finish(cancel: boolean): void {
    const carrier = this.carrier;
    this.handler = null;
    this.options = null;
    this.body = null;
    this.deadline = Number.POSITIVE_INFINITY;
    this.carrier = null;
    if (carrier !== null) {
      carrier.streamDone(this, cancel && this.streamId !== 0);
      this.streamId = 0;
      carrier.recycle(this);
    }
  }
}
