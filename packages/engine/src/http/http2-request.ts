import type { ClientHttp2Stream, IncomingHttpHeaders } from "node:http2";
import { constants } from "node:http2";
import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { codedError, type HeadAwareHandler, ProtocolError } from "./http1-connection.js";
import type { HeaderSelection } from "./response-parser.js";

/** What a request tells the session that carries it. */
export interface StreamCarrier {
  /** The stream's exchange is over (answered or failed): its slot is free. */
  streamDone(request: Http2Request): void;
  /** Node closed the stream: the request object may carry another. */
  streamClosed(request: Http2Request): void;
  /** Refused by the server before it did anything with it: send it again, on any session. */
  retry(request: Http2Request): void;
  /** The phases of this request's connection, if it was the one that opened it. */
  phasesFor(request: Http2Request): { connectMs: number; tlsMs: number; readyAt: number };
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const noop = () => {};
/** The request object a stream carries, for the listeners below (shared, not one closure each). */
const CARRIED = Symbol("volley.h2.request");
type CarryingStream = ClientHttp2Stream & { [CARRIED]: Http2Request | null };

/**
 * One request on an HTTP/2 stream, reused for request after request of the pool: the handler's
 * undici callbacks from node's stream events, its deadline (checked by the pool's sweep), its
 * abort. The stream's listeners are module functions reading the request off the stream, so a
 * request costs node's stream and nothing per request of ours.
 */
export class Http2Request {
  handler: Dispatcher.DispatchHandler | null = null;
  options: Dispatcher.DispatchOptions | null = null;
  carrier: StreamCarrier | null = null;
  /** performance.now() past which the request has taken too long. */
  deadline = Number.POSITIVE_INFINITY;
  /** Sent again once after a refused stream; never twice. */
  retried = false;
  private stream: CarryingStream | null = null;
  private writtenAt = 0;
  private answered = false;
  readonly abort = (reason?: Error) => this.fail(reason ?? codedError("UND_ERR_ABORTED", "aborted"));

  /** Takes a dispatch: the next `send` carries it. */
  take(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
    this.options = options;
    this.handler = handler;
    this.retried = false;
  }

  /** Whether the request is still waiting for its answer. */
  get pending(): boolean {
    return this.handler !== null;
  }

  /** Its stream is open: listen to it; the handler hears of the answer, or of the error. */
  carry(stream: ClientHttp2Stream, carrier: StreamCarrier, body: string | Uint8Array | null): void {
    const carried = stream as CarryingStream;
    carried[CARRIED] = this;
    this.stream = carried;
    this.carrier = carrier;
    this.answered = false;
    carried.on("response", onResponse);
    carried.on("data", onData);
    carried.on("end", onEnd);
    carried.on("error", onError);
    carried.on("close", onClose);
    if (body !== null) carried.end(body);
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

  response(headers: IncomingHttpHeaders): void {
    const handler = this.handler;
    if (handler === null || this.carrier === null) return;
    const firstByteAt = performance.now();
    this.answered = true;
    this.deadline = firstByteAt + (this.options?.bodyTimeout ?? 300_000);
    const aware = handler as HeadAwareHandler;
    const raw = rawHeaders(headers, aware.wantsHeaders ?? true);
    // No head bytes on the wire to count (HPACK): the estimate from the headers read, as undici's.
    const phases = this.carrier.phasesFor(this);
    aware.onPhases?.(phases.connectMs, phases.tlsMs, phases.readyAt, this.writtenAt, firstByteAt);
    handler.onHeaders?.(Number(headers[":status"]), raw as unknown as Buffer[], noop, "");
  }

  data(chunk: Buffer): void {
    const handler = this.handler;
    if (handler === null) return;
    this.deadline = performance.now() + (this.options?.bodyTimeout ?? 300_000);
    handler.onData?.(chunk);
  }

  end(): void {
    const handler = this.handler;
    if (handler === null) return;
    this.finish();
    handler.onComplete?.([]);
  }

  /** Node closed the stream: a request still pending was reset, or refused and sent again. */
  closed(): void {
    const stream = this.stream;
    const carrier = this.carrier;
    if (stream === null || carrier === null) return;
    stream[CARRIED] = null;
    this.stream = null;
    if (this.handler !== null) {
      const code = stream.rstCode ?? constants.NGHTTP2_NO_ERROR;
      if (code === constants.NGHTTP2_REFUSED_STREAM && this.retryable()) {
        // The server did nothing with it (RFC 9113 §8.7): the same request, on any session.
        this.carrier = null;
        carrier.streamDone(this);
        this.retried = true;
        carrier.retry(this);
        return;
      }
      // With the stream gone, failing hands the request object back too.
      this.fail(codedError("UND_ERR_SOCKET", `the server reset the stream (HTTP/2 error code ${code})`));
      return;
    }
    this.carrier = null;
    carrier.streamClosed(this);
  }

  /** Ends the request with `error` (its stream cancelled) unless it has ended already. */
  fail(error: Error): void {
    const handler = this.handler;
    if (handler === null) return;
    this.finish();
    const stream = this.stream;
    if (stream !== null) {
      // Its close event hands the request object back.
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
    } else if (this.carrier !== null) {
      // Never carried by a stream (aborted as it was handed one, or refused by node): back now.
      const carrier = this.carrier;
      this.carrier = null;
      carrier.streamClosed(this);
    }
    handler.onError?.(http2Error(error));
  }

  /** Nothing came back and sending it again cannot do anything twice. */
  private retryable(): boolean {
    return !this.retried && !this.answered && this.options !== null && IDEMPOTENT.has(this.options.method);
  }

  private finish(): void {
    this.handler = null;
    this.options = null;
    this.deadline = Number.POSITIVE_INFINITY;
    this.carrier?.streamDone(this);
  }
}

function onResponse(this: CarryingStream, headers: IncomingHttpHeaders): void {
  this[CARRIED]?.response(headers);
}
function onData(this: CarryingStream, chunk: Buffer): void {
  this[CARRIED]?.data(chunk);
}
function onEnd(this: CarryingStream): void {
  this[CARRIED]?.end();
}
function onError(this: CarryingStream, error: Error): void {
  // The server reset the stream: its close event follows, with the code that says what to do.
  if ((error as { code?: string }).code === "ERR_HTTP2_STREAM_ERROR") return;
  this[CARRIED]?.fail(error);
}
function onClose(this: CarryingStream): void {
  this[CARRIED]?.closed();
}

/** The response headers a handler reads, flat as undici's raw headers: none, some or all. */
function rawHeaders(headers: IncomingHttpHeaders, wanted: HeaderSelection): string[] {
  const raw: string[] = [];
  if (wanted === false) return raw;
  const add = (name: string) => {
    const value = headers[name];
    if (value === undefined) return;
    if (Array.isArray(value)) for (const item of value) raw.push(name, item);
    else raw.push(name, String(value));
  };
  if (wanted === true) {
    for (const name in headers) if (name.charCodeAt(0) !== 58 /* ":" */) add(name);
  } else {
    for (const name of wanted) add(name);
  }
  return raw;
}

/**
 * Node's HTTP/2 errors as the report sorts them (classify-error.ts): a stream cancelled because
 * its session failed is that failure (a refused connect, a TLS alert); nghttp2's protocol error
 * is the target breaking HTTP/2; a reset or a lost session is a reset.
 */
function http2Error(error: Error): Error {
  const code = (error as { code?: string }).code;
  const cause = (error as { cause?: unknown }).cause;
  if (code === "ERR_HTTP2_STREAM_CANCEL" && cause instanceof Error) return http2Error(cause);
  if (code === "ERR_HTTP2_ERROR" || code === "ERR_HTTP2_INVALID_HEADER_VALUE") {
    return new ProtocolError(`HTTP/2: ${error.message}`);
  }
  if (code?.startsWith("ERR_HTTP2_")) return codedError("UND_ERR_SOCKET", `${code}: ${error.message}`);
  return error;
}
