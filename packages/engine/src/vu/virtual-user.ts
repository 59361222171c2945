import { performance } from "node:perf_hooks";
import { drawThinkTime, type ErrorKind } from "@volley/protocol";
import type { Dispatcher } from "undici";
import { classifyError, describeError } from "../http/classify-error.js";
import { responseHeadBytes } from "../http/head-size.js";
import type { HeadAwareHandler } from "../http/http1-connection.js";
import type { HeaderSelection } from "../http/response-parser.js";
import type { TemplateContext } from "../scenario/compiled-template.js";
import type { GateEntrant } from "./connection-gate.js";
import type { EngineVu, IterationEnd } from "./engine-vu.js";
import { FlowCursor, pickFlow } from "./flow-cursor.js";
import { HttpSession, needsSession } from "./http-session.js";
import { checkResponse } from "./response-check.js";
import type { VuContext, VuOrigin } from "./vu-context.js";

/** The whole request took longer than its timeout (a body that trickles in forever, say). */
const DEADLINE = Object.assign(new Error("the request took longer than its timeout"), {
  code: "UND_ERR_BODY_TIMEOUT",
});

const ABORTED = Object.assign(new Error("aborted at the end of gracefulStop"), { code: "UND_ERR_ABORTED" });

/**
 * One virtual user: runs the scenario's requests in order, one in flight at a time. The VU is
 * its own undici handler (legacy callbacks, the cheapest path), so a request allocates only its
 * dispatch options. Nothing here waits for stats: a request ends with one `record` call.
 */
export class VirtualUser implements EngineVu, Dispatcher.DispatchHandler, HeadAwareHandler, GateEntrant {
  /** The response headers the request in flight reads: all for captures, the session's, or none. */
  wantsHeaders: HeaderSelection = false;
  /** Iterations completed. */
  iteration = 0;
  busy = false;
  /** The prepared request waits at the connection gate. */
  waitingAtGate = false;
  /** Its data ran out: it starts no more iterations. */
  exhausted = false;
  /** Aborted before it was written to a socket: not a request, not counted. */
  private unsent = false;
  private dispatchOptions: Dispatcher.DispatchOptions | null = null;
  /** Cookies, redirects, compression; null when the scenario uses none of them. */
  private readonly session: HttpSession | null;
  /** The path of the request in flight (cookies are stored for it). */
  private path = "";
  /** The next send follows a redirect to this path (and as GET when `redirectAsGet`). */
  private redirectTo: string | null = null;
  private redirectAsGet = false;
  private readonly template: TemplateContext;
  /** The request in flight, by index into ctx.requests, and where it goes. */
  private requestIndex = 0;
  private origin: VuOrigin;
  /** Requests sent in this iteration (0: nothing has left yet). */
  private sentCount = 0;
  private readonly cursor: FlowCursor;
  private scheduledAt = -1;
  private startedAt = 0;
  /** When the current request was dispatched (its deadline counts from here). */
  private sentAt = 0;
  private status = 0;
  private bytesIn = 0;
  /** The head's exact size when the client says it (Volley's client); -1 to count from the headers. */
  private headBytes = -1;
  private bytesOut = 0;
  private chunks: Buffer[] | null = null;
  private keptBytes = 0;
  private chunksSeen = 0;
  /** The body passed maxBodyBytes: the rest was counted and discarded. */
  private bodyTooLarge = false;
  private rawHeaders: Buffer[] | string[] | null = null;
  private abortRequest: ((reason?: Error) => void) | null = null;
  private thinkTimer: NodeJS.Timeout | null = null;
  private aborting = false;
  private onEnd: IterationEnd | null = null;
  private readonly sendNext = () => this.send();

  constructor(
    /** Global VU number, unique across threads and workers (1-based). */
    readonly number: number,
    /** Index of the VU within its thread. */
    readonly index: number,
    private readonly ctx: VuContext,
  ) {
    this.template = { vu: number, iter: 0, worker: ctx.worker, vars: {}, rows: [] };
    this.origin = ctx.origins[0];
    this.cursor = new FlowCursor(ctx.groupRecorders);
    this.session = needsSession(ctx.session) ? new HttpSession(ctx.session) : null;
  }

  /**
   * Runs one iteration. `scheduledAt` (performance.now ms) is the iteration's planned start under
   * an arrival rate: the first request's latency counts from it, so a stalled server shows up.
   */
  startIteration(onEnd: IterationEnd, scheduledAt = -1): void {
    this.busy = true;
    this.aborting = false;
    this.onEnd = onEnd;
    this.sentCount = 0;
    this.scheduledAt = scheduledAt;
    this.template.iter = this.iteration;
    this.session?.iterationStarts();
    if (
      this.ctx.feederPicks.length > 0 &&
      !this.ctx.feeders.pick(this.number, this.iteration, this.ctx.feederPicks, this.template.rows)
    ) {
      // A unique feeder ran out (`onExhausted: stop`): this VU has no more iterations to run.
      this.exhausted = true;
      queueMicrotask(this.endLater);
      return;
    }
    this.cursor.begin(pickFlow(this.ctx.flows).program);
    this.next();
  }

  /** Sends the flow's next request, or ends the iteration at the flow's end. */
  private readonly next = (): void => {
    this.thinkTimer = null;
    const index = this.cursor.nextRequest(performance.now());
    if (index < 0) {
      this.endIteration();
      return;
    }
    this.requestIndex = index;
    this.send();
  };

  /**
   * Ends the iteration now: an in-flight request is aborted and counted as `aborted`; one still
   * waiting for a connection was never sent and is not counted.
   */
  abort(): void {
    if (!this.busy || this.aborting) return;
    this.aborting = true;
    if (this.waitingAtGate) {
      this.waitingAtGate = false;
      this.dispatchOptions = null;
      this.endIteration();
    } else if (this.thinkTimer) {
      clearTimeout(this.thinkTimer);
      this.thinkTimer = null;
      this.endIteration();
    } else {
      this.abortRequest?.(ABORTED);
    }
  }

  private send(): void {
    this.thinkTimer = null;
    const request = this.ctx.requests[this.requestIndex];
    const origin = this.ctx.origins[request.originIndex];
    this.origin = origin;
    const path = this.redirectTo ?? request.path.render(this.template);
    this.path = path;
    // Fixed headers are counted at compile time; rendered values are close enough to their templates.
    let bytesOut = request.fixedBytesOut + path.length;
    let headers: readonly string[];
    if (request.staticHeaders !== null) headers = request.staticHeaders;
    else {
      const rendered: string[] = [];
      for (let i = 0; i < request.headerNames.length; i++) {
        rendered.push(request.headerNames[i], request.headerValues[i].render(this.template));
      }
      headers = rendered;
    }
    const cookie = this.session?.cookieHeader(origin.host, origin.https, path) ?? null;
    if (cookie !== null) {
      headers = headers.concat("cookie", cookie);
      bytesOut += cookie.length + 10;
    }
    const asGet = this.redirectTo !== null && this.redirectAsGet;
    const body = asGet
      ? null
      : (request.staticBody ??
        request.multipart?.render(this.template) ??
        (request.body ? request.body.render(this.template) : null));
    if (body !== null) bytesOut += Buffer.byteLength(body) + 20;
    this.bytesOut = bytesOut;
    this.bytesIn = 0;
    this.headBytes = -1;
    this.wantsHeaders = request.captures.length > 0 ? true : (this.session?.headerNames ?? false);
    this.status = 0;
    this.rawHeaders = null;
    this.chunks = request.needsBody ? [] : null;
    this.keptBytes = 0;
    this.chunksSeen = 0;
    this.bodyTooLarge = false;
    this.abortRequest = null;
    this.unsent = false;
    // Latency counts from here, the wait for a connection included (as it did inside undici's queue).
    this.startedAt = this.scheduledAt >= 0 && this.sentCount === 0 ? this.scheduledAt : performance.now();
    this.dispatchOptions = {
      path,
      method: asGet ? "GET" : request.method,
      // undici reads the list, never writes it (the compiled one is frozen).
      headers: headers as string[],
      body,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    };
    if (origin.gate.enter(this)) this.admit();
    else this.waitingAtGate = true;
  }

  /** In an iteration whose first request still waits for a connection: nothing of it was sent. */
  get unstarted(): boolean {
    return this.waitingAtGate && this.sentCount === 0;
  }

  admit(): void {
    const options = this.dispatchOptions;
    if (options === null) return;
    this.waitingAtGate = false;
    this.dispatchOptions = null;
    this.sentCount++;
    this.sentAt = performance.now();
    this.origin.dispatcher.dispatch(options, this);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.aborting) {
      this.unsent = true;
      abort(ABORTED);
    }
  }

  onHeaders(
    statusCode: number,
    rawHeaders: Buffer[] | string[],
    _resume: () => void,
    statusText: string,
  ): boolean {
    this.status = statusCode;
    if (this.session !== null) this.session.readHeaders(statusCode, rawHeaders, this.origin.host, this.path);
    this.bytesIn += responseHeadBytes(this.headBytes, statusText, rawHeaders);
    if (this.ctx.requests[this.requestIndex].captures.length > 0) this.rawHeaders = rawHeaders;
    return true;
  }

  onHeadBytes(bytes: number): void {
    this.headBytes = bytes;
  }

  /** A capture or expectation reads this response's body: its chunks are kept (see HeadAwareHandler). */
  get keepsBody(): boolean {
    return this.chunks !== null;
  }

  onData(chunk: Buffer): boolean {
    this.bytesIn += chunk.length;
    if (this.chunks !== null) {
      this.keptBytes += chunk.length;
      if (this.keptBytes > this.ctx.maxBodyBytes) {
        this.chunks = null; // drained from here on, never kept
        this.bodyTooLarge = true;
      } else {
        this.chunks.push(chunk);
      }
    }
    // undici's bodyTimeout is idle time between chunks; the timeout is for the whole request.
    // A one-chunk body is covered by the headers timeout: the clock is read from the second on.
    if (
      ++this.chunksSeen > 1 &&
      performance.now() - this.sentAt > this.ctx.requests[this.requestIndex].timeoutMs
    ) {
      this.abortRequest?.(DEADLINE);
    }
    return true;
  }

  onComplete(): void {
    this.finishRequest(null);
  }

  onError(error: Error): void {
    this.finishRequest(error);
  }

  private finishRequest(error: Error | null): void {
    const latencyUs = (performance.now() - this.startedAt) * 1000;
    const request = this.ctx.requests[this.requestIndex];
    const recorder = this.ctx.recorders[request.index];
    this.abortRequest = null;
    this.origin.gate.leave();
    let failure: [ErrorKind, string] | null = null;
    if (this.unsent) {
      // Never written to a socket: nothing to count.
    } else if (error === null && this.followRedirect(latencyUs, recorder)) {
      return;
    } else if (error !== null) {
      const kind: ErrorKind = this.aborting ? "aborted" : classifyError(error);
      failure = [kind, describeError(error)];
      recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, kind, failure[1]);
    } else {
      failure = checkResponse(
        request,
        {
          status: this.status,
          chunks: this.chunks,
          bodyTooLarge: this.bodyTooLarge,
          rawHeaders: this.rawHeaders,
          encoding: this.session?.encoding ?? null,
        },
        this.ctx.maxBodyBytes,
        this.template.vars,
      );
      if (failure === null) recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut);
      else recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, failure[0], failure[1]);
    }
    this.chunks = null;
    this.rawHeaders = null;
    this.redirectTo = null;
    if (this.session !== null) this.session.hops = 0;
    if (this.aborting) {
      this.endIteration();
      return;
    }
    this.cursor.requestDone(performance.now(), failure);
    const pause = this.ctx.thinks ? drawThinkTime(this.ctx.thinkTime) : 0;
    if (pause > 0) this.thinkTimer = setTimeout(this.next, pause);
    // Let undici release the socket before the next dispatch picks one.
    else queueMicrotask(this.next);
  }

  /**
   * A redirect response while hops are left: recorded as a request of the same name (a hop), and
   * the Location on the same origin is sent next. 303, and 301/302 after a POST, become GET.
   */
  private followRedirect(latencyUs: number, recorder: VuContext["recorders"][number]): boolean {
    const next = this.session?.redirectPath(this.origin.host, this.origin.https) ?? null;
    if (next === null || this.session === null || this.aborting) return false;
    // A hop is one request, not judged: the chain's final answer is (expectations, checks).
    recorder.recordRedirect(latencyUs, this.status, this.bytesIn, this.bytesOut);
    this.session.hops++;
    const sentAsGet = this.redirectTo !== null && this.redirectAsGet;
    const method = sentAsGet ? "GET" : this.ctx.requests[this.requestIndex].method;
    // Once a hop became GET the rest of the chain stays GET (the body is gone).
    this.redirectAsGet =
      sentAsGet || this.status === 303 || ((this.status === 301 || this.status === 302) && method === "POST");
    this.redirectTo = next;
    this.chunks = null;
    this.rawHeaders = null;
    // Let undici release the socket before the next dispatch picks one.
    queueMicrotask(this.sendNext);
    return true;
  }

  private readonly endLater = () => {
    this.thinkTimer = null;
    this.endIteration();
  };

  private endIteration(): void {
    this.iteration++;
    this.busy = false;
    this.aborting = false;
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.(this);
  }
}
