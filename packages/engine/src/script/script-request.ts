import { performance } from "node:perf_hooks";
import type { ErrorKind } from "@volley/protocol";
import type { ResponseTimings } from "@volley/script";
import type { RequestRecorder } from "@volley/stats";
import type { Dispatcher } from "undici";
import { classifyError, describeError } from "../http/classify-error.js";
import { headerPairs } from "../http/head-bytes.js";
import { RequestFailedError } from "../http/request-failed-error.js";
import { ResponseIntake } from "../http/response-intake.js";
import type { GateEntrant } from "../vu/connection-gate.js";
import type { VuOrigin } from "../vu/vu-context.js";
import type { BundlePosition } from "./call-site.js";

export { RequestFailedError } from "../http/request-failed-error.js";

/** The response headers the engine itself reads for a script (cookies, decompression). */
const ENGINE_READS: readonly string[] = ["set-cookie", "content-encoding"];

/**
 * One request of a scripted VU through the thread's pool, as an undici handler (the same client
 * and connection gate as declarative VUs). A failure is recorded here and goes to `failed`; an
 * answer goes to `answered`, whose subclass records it once it has checked the expectations.
 * Subclasses rather than callbacks: a request then costs one object, not an object and closures.
 */
export abstract class ScriptRequest
  extends ResponseIntake
  implements Dispatcher.DispatchHandler, GateEntrant
{
  readonly wantsHeaders = true;
  /** Given the head's bytes, the client makes strings of these only (the two the engine reads). */
  readonly headerStrings = ENGINE_READS;
  waitingAtGate = false;
  private rawHeaders: Buffer[] | string[] = [];
  private head: Buffer | null = null;
  /** Set-Cookie values, when the answer has any. */
  protected setCookies: string[] | null = null;
  /** Content-Encoding (lower case), or null. */
  protected encoding: string | null = null;
  /** performance.now() its answer ended. */
  private answeredAt = 0;
  private aborted: Error | null = null;
  /** Whether it was ever written (an abort before that is no request). */
  sent = false;
  /** performance.now() the script asked for it. */
  private readonly calledAt = performance.now();
  /** Where the script asked for it ("flow.ts:12"), as its bundle stamped the call (call-stamps). */
  place: string | null = null;
  /** Where, from a stack, for a call the bundle could not stamp, once the script was seen not awaiting one. */
  callSite: BundlePosition | null = null;
  /** The trace id it is sent with (`http.tracing`): a failure keeps it. */
  traceId: string | undefined = undefined;

  constructor(
    private readonly origin: VuOrigin,
    private readonly options: Dispatcher.DispatchOptions,
    private readonly recorder: RequestRecorder,
    private readonly timeout: number,
    private readonly maxBody: number,
    /** An estimate; Volley's client says the exact count once written (onRequestBytes). */
    bytesOut: number,
    /**
     * performance.now() latency counts from: an arrival-rate iteration's schedule for its first
     * request (a stalled server shows), else -1: from the moment it is handed a connection.
     */
    startedAt: number,
    /**
     * A script may read any answer's body, unless the call set `discardBody`; a stream's events
     * are read as they come instead.
     */
    private readonly keepBody = true,
  ) {
    super();
    this.beginIntake(keepBody, bytesOut, startedAt);
  }

  /**
   * The answer is complete (its gate slot already given back), `latencyUs` its latency. The
   * answer is read from this request (status, bytes, and the `answer*` methods): no object of
   * its own per answer.
   */
  protected abstract answered(latencyUs: number): void;

  /** It failed (recorded already), or was aborted before it was sent (no request). */
  protected abstract failed(error: Error): void;

  protected get timeoutMs(): number {
    return this.timeout;
  }

  protected get maxBodyBytes(): number {
    return this.maxBody;
  }

  /**
   * Queues at the gate, or sends at once. `waited`: it waited for one of its VU's slots; else it
   * is sent in the call that asked for it, and was handed a connection when it was asked for (one
   * clock read, not two).
   */
  go(waited: boolean): void {
    if (this.origin.gate.enter(this)) this.dispatchAt(waited ? performance.now() : this.calledAt);
    else this.waitingAtGate = true;
  }

  admit(): void {
    this.dispatchAt(performance.now());
  }

  private dispatchAt(now: number): void {
    this.waitingAtGate = false;
    if (this.aborted) {
      this.origin.gate.leave();
      this.failed(this.aborted);
      return;
    }
    this.sent = true;
    this.markSent(now);
    this.origin.dispatcher.dispatch(this.options, this);
  }

  /** Ends it now: in flight it fails as `aborted`; still at the gate it was never a request. */
  abort(reason: Error): void {
    this.aborted = reason;
    if (this.waitingAtGate) {
      this.waitingAtGate = false;
      this.failed(reason);
    } else {
      this.abortRequest?.(reason);
    }
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.aborted) abort(this.aborted);
  }

  /** Aborted while its write waited for the thread's batch: it never left, as at the gate. */
  onNeverWritten(): void {
    if (this.aborted) this.sent = false;
  }

  /** A script reads a response's headers seldom: their strings are made from these bytes when it does. */
  onRawHead(head: Buffer): void {
    this.head = head;
  }

  onHeaders(
    status: number,
    rawHeaders: Buffer[] | string[],
    _resume: () => void,
    statusText: string,
  ): boolean {
    this.status = status;
    this.rawHeaders = rawHeaders;
    // Only the two headers the engine itself reads are looked at here (cheap length checks first).
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const length = rawHeaders[i].length;
      if (length === 10 && rawHeaders[i].toString().toLowerCase() === "set-cookie") {
        this.setCookies ??= [];
        this.setCookies.push(rawHeaders[i + 1].toString());
      } else if (length === 16 && rawHeaders[i].toString().toLowerCase() === "content-encoding") {
        this.encoding = rawHeaders[i + 1].toString().trim().toLowerCase();
      }
    }
    this.countHead(statusText, rawHeaders, status);
    return true;
  }

  onComplete(): void {
    this.origin.gate.leave();
    this.recordPhases(this.recorder);
    const endedAt = this.endAt();
    this.answeredAt = endedAt;
    this.answered(this.latencyUs(endedAt));
  }

  /** The head's headers as name-value pairs: all of them, from its bytes when the client kept them. */
  answerHeaders(): Buffer[] | string[] {
    return this.head === null ? this.rawHeaders : headerPairs(this.head);
  }

  /** The body passed maxBodyBytes (the rest was read and discarded). */
  get answerTooLarge(): boolean {
    return this.bodyTooLarge;
  }

  /** The call set `discardBody`: the body was counted and not kept. */
  get answerDiscarded(): boolean {
    return !this.keepBody;
  }

  /**
   * The body's bytes (each kept chunk is the answer's own, never a shared read buffer); null when
   * too large, or when the request did not keep it.
   */
  answerBody(): Buffer | null {
    const { chunks } = this;
    if (this.answerTooLarge || chunks === null) return null;
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }

  /** Where the answer's time went, ms (see ResponseTimings in @volley/script). */
  answerTimings(latencyUs: number): ResponseTimings {
    return {
      // Waiting for a free connection (the VU's or the thread's): never part of latency.
      blocked: this.sentAt - this.calledAt,
      connect: this.connectUs / 1000,
      tls: this.tlsUs / 1000,
      sending: this.sendingUs / 1000,
      // A client that says no phases (undici's): from the request handed a connection to the head.
      waiting: this.waitingUs >= 0 ? this.waitingUs / 1000 : Math.max(0, this.firstByteAt - this.sentAt),
      receiving: this.firstByteAt < 0 ? 0 : this.answeredAt - this.firstByteAt,
      duration: latencyUs / 1000,
    };
  }

  onError(error: Error): void {
    this.origin.gate.leave();
    if (this.aborted && !this.sent) {
      this.failed(this.aborted);
      return;
    }
    const kind: ErrorKind = this.aborted ? "aborted" : classifyError(error);
    const message = describeError(error);
    const latencyUs = this.latencyUs();
    this.recordPhases(this.recorder);
    this.recorder.record(latencyUs, this.status, this.bytesIn, this.bytesOut, kind, message, this.traceId);
    this.failed(new RequestFailedError(kind, message));
  }
}
