import type { Vu } from "@volley/script";
import { VuGrpc } from "../grpc/vu-grpc.js";
import { CookieJar } from "../http/cookie-jar.js";
import type { EngineVu, IterationEnd, IterationOutcome } from "../vu/engine-vu.js";
import { VuSockets } from "../ws/vu-sockets.js";
import { describeScriptError } from "./load-scripts.js";
import { RequestFailedError } from "./script-http.js";
import type { ScriptRequest } from "./script-request.js";
import type { ScriptVuContext } from "./script-vu-context.js";
import { FeederExhaustedError, VuApi, type VuApiHost } from "./vu-api.js";

const ABORTED = new RequestFailedError("aborted", "aborted at the end of gracefulStop");

/**
 * A virtual user running a script: each iteration awaits the script's default export with this
 * VU's `vu` object. A throw ends the iteration and is counted (kind `script`, with the user's
 * file and line); a request that got no answer was counted already and ends it quietly. An abort
 * ends the iteration at once: whatever the script still does is ignored and sends nothing.
 */
export class ScriptedVu implements EngineVu, VuApiHost {
  iteration = 0;
  busy = false;
  exhausted = false;
  outcome: IterationOutcome = "finished";
  cookies: CookieJar | null;
  private readonly api: Vu;
  private onEnd: IterationEnd | null = null;
  /** Identifies the running iteration: a late settle of an aborted one is ignored. */
  private token = 0;
  private scheduledAt = -1;
  private sent = 0;
  /** The running iteration's requests not ended yet (a script may start several, or not await one). */
  // An array, not a Set: V8 makes a Set a new table each time it empties (once per request here).
  private readonly inFlight: ScriptRequest[] = [];
  /** Of those, the ones handed a connection slot; the rest wait in `waiting`, in order. */
  private slotsTaken = 0;
  /** Requests of the running iteration that ended. */
  private requestsEnded = 0;
  private waiting: ScriptRequest[] = [];
  /** The iteration's function returned while requests were in flight: it ends when they do. */
  private endWhenAnswered = false;
  private sleeping: { timer: NodeJS.Timeout; reject: (e: Error) => void } | null = null;
  /** The running iteration's WebSockets. */
  readonly sockets: VuSockets;
  /** Its gRPC clients (channels kept across iterations; calls not past their iteration). */
  readonly grpcClients: VuGrpc;

  constructor(
    readonly number: number,
    readonly index: number,
    private readonly ctx: ScriptVuContext,
  ) {
    this.cookies = ctx.cookies ? new CookieJar() : null;
    this.sockets = new VuSockets(ctx.http);
    this.grpcClients = new VuGrpc(ctx.http, number);
    this.api = new VuApi(this, ctx);
  }

  /** Its iteration has made requests, and none has been written yet (all wait for a connection). */
  get unstarted(): boolean {
    return this.busy && this.noneSent(this.inFlight);
  }

  /** `requests` are the running iteration's, none has ended and none was written. */
  private noneSent(requests: readonly ScriptRequest[]): boolean {
    if (this.requestsEnded !== 0 || requests.length === 0) return false;
    for (const request of requests) if (request.sent) return false;
    return true;
  }

  startIteration(onEnd: IterationEnd, scheduledAt = -1): void {
    this.busy = true;
    this.onEnd = onEnd;
    this.scheduledAt = scheduledAt;
    if (this.ctx.cookieReset === "iteration") this.cookies?.clear();
    this.sent = 0;
    this.requestsEnded = 0;
    void this.runIteration(++this.token);
  }

  /**
   * Runs the script's function (at once, inside startIteration) and settles its iteration when it
   * ends. An await rather than `.then` with two closures: no closures per iteration (this
   * method's own promise takes the place of `.then`'s), and the same turn of the microtask queue.
   */
  private async runIteration(token: number): Promise<void> {
    try {
      await this.ctx.script.run(this.api);
    } catch (error) {
      this.settle(token, error);
      return;
    }
    this.settle(token, null);
  }

  abort(): void {
    if (!this.busy) return;
    const requests = this.inFlight.splice(0);
    this.waiting = [];
    this.slotsTaken = 0;
    for (const request of requests) request.abort(ABORTED);
    // Judged after the aborts (they end nothing of `requestsEnded`: the requests are untracked
    // already): a request whose write still waited for the thread's batch never left.
    this.outcome = this.noneSent(requests) ? "unsent" : "interrupted";
    this.sockets.closeAll(true);
    this.grpcClients.iterationEnded(true);
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.reject(ABORTED);
      this.sleeping = null;
    }
    this.end();
  }

  takeScheduledStart(): number {
    const at = this.sent === 0 ? this.scheduledAt : -1;
    this.sent++;
    return at;
  }

  get locatesCalls(): string | null {
    return this.ctx.notAwaited.locating ? this.ctx.script.frameRoot : null;
  }

  send(request: ScriptRequest): void {
    this.inFlight.push(request);
    if (this.slotsTaken < this.ctx.maxInFlight) {
      this.slotsTaken++;
      request.go(false);
    } else {
      // Not sent: an abort now ends it uncounted, as at the thread's gate.
      request.waitingAtGate = true;
      this.waiting.push(request);
    }
  }

  untrack(request: ScriptRequest): void {
    // Only a request that had a slot ends by itself (a waiting one ends only by an abort).
    // Requests end mostly in the order they started: the search is short.
    const at = this.inFlight.indexOf(request);
    if (at < 0) return;
    if (at === 0) this.inFlight.shift();
    else this.inFlight.splice(at, 1);
    this.requestsEnded++;
    const next = this.waiting.shift();
    if (next === undefined) this.slotsTaken--;
    else {
      next.waitingAtGate = false;
      next.go(true);
    }
    if (this.inFlight.length === 0 && this.endWhenAnswered && this.busy) this.end();
  }

  assertRunning(): void {
    if (!this.busy) throw ABORTED;
  }

  private settle(token: number, error: unknown): void {
    if (token !== this.token || !this.busy) return; // aborted already: ignored
    this.outcome = "finished";
    if (error instanceof FeederExhaustedError) {
      this.exhausted = true;
      this.outcome = "exhausted";
    } else if (error !== null && !(error instanceof RequestFailedError)) {
      const message = describeScriptError(error, this.ctx.script.frameRoot);
      this.ctx.http.recorders.scriptErrors(this.ctx.script.name).record(0, 0, 0, 0, "script", message);
    }
    // Requests the script did not await are still the iteration's: each is answered and counted
    // once before the next iteration starts (an abort at the run's end fails them as aborted).
    if (this.inFlight.length > 0) {
      this.ctx.notAwaited.report(this.inFlight);
      this.endWhenAnswered = true;
      return;
    }
    this.end();
  }

  private end(): void {
    this.sockets.closeAll(false);
    this.grpcClients.iterationEnded(false);
    this.endWhenAnswered = false;
    this.busy = false;
    this.iteration++;
    this.token++;
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.(this);
  }

  /** `vu.sleep`: think time, ended early (rejected) by an abort. */
  sleep(ms: number): Promise<void> {
    this.assertRunning();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.sleeping = null;
          resolve();
        },
        Math.max(0, Number(ms) || 0),
      );
      this.sleeping = { timer, reject };
    });
  }
}
