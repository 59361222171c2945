import { performance } from "node:perf_hooks";
import { type ErrorKind, type StreamTiming, streamStatsName } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import type { Dispatcher } from "undici";
import { classifyError, describeError } from "../http/classify-error.js";
import type { TracedDispatchOptions } from "../http/request-head.js";
import { ResponseIntake } from "../http/response-intake.js";
import type { HeaderSelection } from "../http/response-parser.js";
import { StreamReader, type StreamSpec } from "../http/stream-reader.js";
import { traceIdOf } from "../http/trace-ids.js";
import type { CompiledRequest } from "../scenario/compiled-request.js";
import type { TemplateContext } from "../scenario/compiled-template.js";
import type { GateEntrant } from "./connection-gate.js";
import type { HttpSession, SessionHeaders } from "./http-session.js";
import { checkResponse } from "./response-check.js";
import type { VuContext, VuOrigin } from "./vu-context.js";

const ABORTED = Object.assign(new Error("aborted at the end of gracefulStop"), { code: "UND_ERR_ABORTED" });
/** A stream's `until` event arrived: the request ends there, answered. */
const STREAM_DONE = new Error("the stream's until event arrived");

/** What an exchange needs of the VU it serves. */
export interface ExchangeOwner {
  readonly ctx: VuContext;
  readonly template: TemplateContext;
  readonly session: HttpSession | null;
  /** The exchange is over: answered and judged (failure null when it passed), failed, or aborted. */
  exchangeDone(exchange: RequestExchange, failure: [ErrorKind, string] | null): void;
}

/**
 * One request of a declarative VU, from its connection gate to its record: the request rendered
 * from its templates, sent through the origin's gate and pool, its answer read (the VU is its own
 * undici handler through this object: legacy callbacks, the cheapest path), redirects followed
 * hop by hop (each hop a request, the chain judged once on its final answer), expectations
 * checked and captures taken, and one `record` call. A VU holds one for its requests in turn, and
 * one per request of a `parallel` step. Nothing here waits for stats.
 */
export class RequestExchange extends ResponseIntake implements Dispatcher.DispatchHandler, GateEntrant {
  /** The response headers the request in flight reads: all for captures, the session's, or none. */
  wantsHeaders: HeaderSelection = false;
  /** The prepared request waits at the connection gate. */
  waitingAtGate = false;
  /** Between `start` and its end (told to the owner, or aborted before it left). */
  active = false;
  /** Handed a connection at least once since `start` (a request that left). */
  sent = false;
  /**
   * Its last request was answered and its connection is free already (the client released it
   * first): the VU's next request may go at once, from inside the client's callback.
   */
  answeredOnFreeConnection = false;
  /** Aborted before it was written to a socket: not a request, not counted. */
  private unsent = false;
  private aborting = false;
  private dispatchOptions: TracedDispatchOptions | null = null;
  private requestIndex = 0;
  private origin: VuOrigin;
  /** The path of the request in flight (cookies are stored for it). */
  private path = "";
  /** The next send follows a redirect to this path (and as GET when `redirectAsGet`). */
  private redirectTo: string | null = null;
  private redirectAsGet = false;
  private hops = 0;
  private readonly headers: SessionHeaders = { location: null, encoding: null };
  /** An arrival-rate iteration's schedule its first request counts from; -1: from the connection. */
  private scheduledAt = -1;
  private rawHeaders: Buffer[] | string[] | null = null;
  private readonly sendNext = () => this.send();
  /** The events of a streamed request in flight (`stream:`); null for any other. */
  private stream: StreamReader | null = null;
  /** The trace id sent with the request in flight (`http.tracing`). */
  private traceId: string | undefined = undefined;

  constructor(private readonly owner: ExchangeOwner) {
    super();
    this.origin = owner.ctx.origins[0];
  }

  protected get timeoutMs(): number {
    return this.owner.ctx.requests[this.requestIndex].timeoutMs;
  }

  protected get maxBodyBytes(): number {
    return this.owner.ctx.maxBodyBytes;
  }

  /** Sends request `index` of the scenario; `scheduledAt` >= 0 times it from that moment. */
  start(index: number, scheduledAt: number): void {
    this.requestIndex = index;
    this.scheduledAt = scheduledAt;
    this.aborting = false;
    this.sent = false;
    this.active = true;
    this.send();
  }

  /**
   * Ends it now: in flight it fails as `aborted` (and calls back when the client gives it up);
   * still waiting for a connection it was never a request. Returns true when it ended here.
   */
  abort(): boolean {
    if (!this.active || this.aborting) return false;
    this.aborting = true;
    if (this.waitingAtGate) {
      this.waitingAtGate = false;
      this.dispatchOptions = null;
      this.unsent = true;
      this.active = false;
      return true;
    }
    this.abortRequest?.(ABORTED);
    return false;
  }

  /** Whether nothing of its last request reached a socket (aborted first). */
  get neverSent(): boolean {
    return !this.sent || this.unsent;
  }

  private send(): void {
    const { ctx, template, session } = this.owner;
    const request = ctx.requests[this.requestIndex];
    const origin = ctx.origins[request.originIndex];
    this.origin = origin;
    const path = this.redirectTo ?? request.path.render(template);
    this.path = path;
    // An estimate from the compiled request, for the undici client; Volley's own says the
    // exact count once written (onRequestBytes).
    let bytesOut = request.fixedBytesOut + path.length;
    let headers: readonly string[];
    if (request.staticHeaders !== null) headers = request.staticHeaders;
    else {
      const rendered: string[] = [];
      for (let i = 0; i < request.headerNames.length; i++) {
        rendered.push(request.headerNames[i], request.headerValues[i].render(template));
      }
      headers = rendered;
    }
    const cookie = session?.cookieHeader(origin.host, origin.https, path) ?? null;
    if (cookie !== null) {
      headers = headers.concat("cookie", cookie);
      bytesOut += cookie.length + 10;
    }
    let traceparent: string | undefined;
    if (ctx.tracing !== null) {
      traceparent = ctx.tracing.next();
      if (ctx.tracing.inHeaders) headers = headers.concat("traceparent", traceparent);
      bytesOut += traceparent.length + 15;
      this.traceId = traceIdOf(traceparent);
    }
    const asGet = this.redirectTo !== null && this.redirectAsGet;
    const body = asGet
      ? null
      : (request.staticBody ??
        request.multipart?.render(template) ??
        (request.body ? request.body.render(template) : null));
    if (body !== null) bytesOut += Buffer.byteLength(body) + 20;
    this.wantsHeaders = request.captures.length > 0 ? true : (session?.headerNames ?? false);
    this.rawHeaders = null;
    this.unsent = false;
    // An arrival-rate iteration's first request counts from its schedule (a stalled server shows);
    // any other from the moment it is handed a connection (the wait for one is not latency).
    this.beginIntake(request.needsBody, bytesOut, this.sent ? -1 : this.scheduledAt);
    this.stream = request.stream ? streamReaderOf(ctx, request) : null;
    this.dispatchOptions = {
      path,
      method: asGet ? "GET" : request.method,
      // undici reads the list, never writes it (the compiled one is frozen).
      headers: headers as string[],
      body,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
      traceparent,
    } satisfies TracedDispatchOptions;
    if (origin.gate.enter(this)) this.admit();
    else this.waitingAtGate = true;
  }

  admit(): void {
    const options = this.dispatchOptions;
    if (options === null) return;
    this.waitingAtGate = false;
    this.dispatchOptions = null;
    this.sent = true;
    this.markSent(performance.now());
    this.stream?.begin(this.startedAt);
    this.origin.dispatcher.dispatch(options, this);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.aborting) {
      this.unsent = true;
      abort(ABORTED);
    }
  }

  onNeverWritten(): void {
    if (this.aborting) this.unsent = true;
  }

  onHeaders(
    statusCode: number,
    rawHeaders: Buffer[] | string[],
    _resume: () => void,
    statusText: string,
  ): boolean {
    this.status = statusCode;
    const { session, ctx } = this.owner;
    if (session !== null)
      session.readHeaders(statusCode, rawHeaders, this.origin.host, this.path, this.headers);
    this.countHead(statusText, rawHeaders, statusCode);
    if (ctx.requests[this.requestIndex].captures.length > 0) this.rawHeaders = rawHeaders;
    if (this.stream !== null)
      streamRecorder(ctx, ctx.requests[this.requestIndex], "firstByteMs").record(this.latencyUs(), 0, 0, 0);
    return true;
  }

  protected override get readsEachChunk(): boolean {
    return this.stream !== null && !this.stream.done;
  }

  override onData(chunk: Buffer): boolean {
    if (this.stream !== null && !this.stream.done) {
      this.stream.read(chunk, performance.now());
      if (this.stream.done) this.abortRequest?.(STREAM_DONE);
    }
    return super.onData(chunk);
  }

  onComplete(): void {
    this.answeredOnFreeConnection = this.origin.dispatcher.releasesBeforeComplete === true;
    this.finish(null);
  }

  onError(error: Error): void {
    // A failure may come from inside the dispatch itself: the next request waits for the stack to unwind.
    this.answeredOnFreeConnection = false;
    // Ended at its `until` event: answered, whatever the client says of the cut.
    this.finish(error === STREAM_DONE || this.stream?.done ? null : error);
  }

  private finish(error: Error | null): void {
    const latencyUs = this.latencyUs();
    const { ctx, template } = this.owner;
    const request = ctx.requests[this.requestIndex];
    const recorder = ctx.recorders[request.index];
    this.abortRequest = null;
    this.origin.gate.leave();
    let failure: [ErrorKind, string] | null = null;
    if (!this.unsent) this.recordPhases(recorder);
    if (this.unsent) {
      // Never written to a socket: nothing to count.
    } else if (error === null && this.followRedirect(latencyUs, recorder)) {
      return;
    } else if (error !== null) {
      const kind: ErrorKind = this.aborting ? "aborted" : classifyError(error);
      failure = [kind, describeError(error)];
      recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, kind, failure[1], this.traceId);
    } else {
      failure = checkResponse(
        request,
        {
          status: this.status,
          chunks: this.chunks,
          bodyTooLarge: this.bodyTooLarge,
          rawHeaders: this.rawHeaders,
          encoding: this.headers.encoding,
        },
        ctx.maxBodyBytes,
        template.vars,
      );
      const { traceId } = this;
      if (failure === null)
        recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, undefined, undefined, traceId);
      else
        recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, failure[0], failure[1], traceId);
    }
    this.chunks = null;
    this.rawHeaders = null;
    this.redirectTo = null;
    this.hops = 0;
    this.active = false;
    this.owner.exchangeDone(this, failure);
  }

  /**
   * A redirect response while hops are left: recorded as a request of the same name (a hop), and
   * the Location on the same origin is sent next. 303, and 301/302 after a POST, become GET.
   */
  private followRedirect(latencyUs: number, recorder: RequestRecorder): boolean {
    const { session, ctx } = this.owner;
    if (session === null || this.aborting) return false;
    const next = session.redirectPath(this.headers.location, this.hops, this.origin.host, this.origin.https);
    if (next === null) return false;
    // A hop is one request, not judged: the chain's final answer is (expectations, checks).
    recorder.recordRedirect(latencyUs, this.status, this.bytesIn, this.bytesOut);
    this.hops++;
    const sentAsGet = this.redirectTo !== null && this.redirectAsGet;
    const method = sentAsGet ? "GET" : ctx.requests[this.requestIndex].method;
    // Once a hop became GET the rest of the chain stays GET (the body is gone).
    this.redirectAsGet =
      sentAsGet || this.status === 303 || ((this.status === 301 || this.status === 302) && method === "POST");
    this.redirectTo = next;
    this.chunks = null;
    this.rawHeaders = null;
    // Let the client release the socket before the next dispatch picks one.
    queueMicrotask(this.sendNext);
    return true;
  }
}

/** A streamed request's reader, its recorders looked up once per request. */
function streamReaderOf(ctx: VuContext, request: CompiledRequest): StreamReader {
  return new StreamReader(request.stream as StreamSpec, {
    firstEvent: streamRecorder(ctx, request, "firstEventMs"),
    gap: streamRecorder(ctx, request, "gapMs"),
  });
}

function streamRecorder(ctx: VuContext, request: CompiledRequest, timing: StreamTiming): RequestRecorder {
  return ctx.namedRecorders.get(streamStatsName(request.name, timing)) as RequestRecorder;
}
