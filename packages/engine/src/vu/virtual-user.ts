import { drawThinkTime, type ErrorKind } from "@volley/protocol";
import { GrpcExchange, type GrpcExchangeOwner } from "../grpc/grpc-exchange.js";
import type { TemplateContext } from "../scenario/compiled-template.js";
import { WsExchange, type WsExchangeOwner } from "../ws/ws-exchange.js";
import type { EngineVu, IterationEnd, IterationOutcome } from "./engine-vu.js";
import { FlowCursor, PARALLEL_STEP, pickFlow, SLEEP_STEP } from "./flow-cursor.js";
import { HttpSession, needsSession } from "./http-session.js";
import { type ExchangeOwner, RequestExchange } from "./request-exchange.js";
import type { VuContext } from "./vu-context.js";

/**
 * One virtual user: runs its flow's steps in order, one request in flight at a time, or the
 * requests of a `parallel` step at once (up to `http.maxConnectionsPerVu`). Each request is a
 * RequestExchange (rendered, sent, read, judged, recorded), reused from one request to the next;
 * the VU keeps the iteration: flow, groups, think time, the end.
 */
export class VirtualUser implements EngineVu, ExchangeOwner, WsExchangeOwner, GrpcExchangeOwner {
  /** Iterations completed. */
  iteration = 0;
  busy = false;
  /** Its data ran out: it starts no more iterations. */
  exhausted = false;
  outcome: IterationOutcome = "finished";
  /** Cookies, redirects, compression; null when the scenario uses none of them. */
  readonly session: HttpSession | null;
  readonly template: TemplateContext;
  /** The exchange of sequential steps; those of a parallel step come after it. */
  private readonly exchanges: RequestExchange[];
  private readonly cursor: FlowCursor;
  private scheduledAt = -1;
  /** Requests that left in this iteration (0: nothing has left yet). */
  private startedSteps = 0;
  /** A parallel step under way: its requests not handed to an exchange yet, those in flight, its first failure. */
  private parallelQueue: readonly number[] = [];
  private parallelNext = 0;
  private parallelRunning = 0;
  private parallelFailure: [ErrorKind, string] | null = null;
  private thinkTimer: NodeJS.Timeout | null = null;
  /** The `ws:` request runner, made at the first one. */
  private ws: WsExchange | null = null;
  /** The `grpc:` request runner, made at the first one. */
  private grpc: GrpcExchange | null = null;
  private aborting = false;
  private onEnd: IterationEnd | null = null;

  constructor(
    /** Global VU number, unique across threads and workers (1-based). */
    readonly number: number,
    /** Index of the VU within its thread. */
    readonly index: number,
    readonly ctx: VuContext,
  ) {
    this.template = { vu: number, iter: 0, worker: ctx.worker, vars: {}, rows: [] };
    this.cursor = new FlowCursor(ctx.groupRecorders);
    this.session = needsSession(ctx.session) ? new HttpSession(ctx.session) : null;
    this.exchanges = [new RequestExchange(this)];
  }

  /**
   * Runs one iteration. `scheduledAt` (performance.now ms) is the iteration's planned start under
   * an arrival rate: the first request's latency counts from it, so a stalled server shows up.
   */
  startIteration(onEnd: IterationEnd, scheduledAt = -1): void {
    this.busy = true;
    this.aborting = false;
    this.onEnd = onEnd;
    this.startedSteps = 0;
    this.scheduledAt = scheduledAt;
    this.template.iter = this.iteration;
    this.session?.iterationStarts();
    if (
      this.ctx.feederPicks.length > 0 &&
      !this.ctx.feeders.pick(this.number, this.iteration, this.ctx.feederPicks, this.template.rows)
    ) {
      // A unique feeder ran out (`onExhausted: stop`): this VU has no more iterations to run.
      this.exhausted = true;
      queueMicrotask(this.endExhausted);
      return;
    }
    this.cursor.begin(pickFlow(this.ctx.flows).program);
    this.next();
  }

  /** Sends the flow's next step, or ends the iteration at the flow's end. */
  private readonly next = (): void => {
    this.thinkTimer = null;
    if (this.aborting) {
      this.endIteration("interrupted");
      return;
    }
    const index = this.cursor.nextRequest();
    this.template.repeat = this.cursor.repeat;
    if (index === SLEEP_STEP) {
      // A pause the scenario writes between steps; an abort ends it as it ends think time.
      this.thinkTimer = setTimeout(this.next, this.cursor.sleepMs);
      return;
    }
    if (index === PARALLEL_STEP) this.startParallel(this.cursor.parallelRequests);
    else if (index < 0) this.endIteration("finished");
    else if (this.ctx.requests[index].ws !== null) {
      this.ws ??= new WsExchange(this);
      this.ws.start(index, this.firstSchedule());
    } else if (this.ctx.requests[index].grpc !== null) {
      this.grpc ??= new GrpcExchange(this);
      this.grpc.start(index, this.firstSchedule());
    } else this.exchanges[0].start(index, this.firstSchedule());
  };

  /** The schedule the iteration's first request counts from (arrival rates); -1 for the others. */
  private firstSchedule(): number {
    return this.startedSteps++ === 0 ? this.scheduledAt : -1;
  }

  private startParallel(requests: readonly number[]): void {
    this.parallelQueue = requests;
    this.parallelNext = 0;
    this.parallelFailure = null;
    const width = Math.min(requests.length, this.ctx.maxInFlightPerVu);
    while (this.exchanges.length < width) this.exchanges.push(new RequestExchange(this));
    // All counted before any starts: one that fails at once must not end the step early.
    this.parallelRunning = width;
    // Every request of the step counts from the iteration's schedule when it is the first step.
    const scheduled = this.firstSchedule();
    for (let i = 0; i < width; i++) this.exchanges[i].start(requests[this.parallelNext++], scheduled);
  }

  /**
   * Ends the iteration now: requests in flight are aborted and counted as `aborted`; ones still
   * waiting for a connection were never sent and are not counted.
   */
  abort(): void {
    if (!this.busy || this.aborting) return;
    this.aborting = true;
    if (this.thinkTimer) {
      clearTimeout(this.thinkTimer);
      this.thinkTimer = null;
      this.endIteration("interrupted");
      return;
    }
    if (this.ws?.active || this.grpc?.active) {
      this.ws?.abort();
      this.grpc?.abort();
      this.endIteration("interrupted");
      return;
    }
    this.parallelQueue = [];
    let active = 0;
    let endedHere = 0;
    for (const exchange of this.exchanges) {
      if (!exchange.active) continue;
      active++;
      if (exchange.abort()) endedHere++;
    }
    if (this.parallelRunning > 0) this.parallelRunning -= endedHere;
    // The others call back once the client lets them go. With none active the VU is between
    // steps (or finding its feeder empty): `next` ends it.
    if (active > 0 && endedHere === active) this.endIteration(this.unsentSoFar() ? "unsent" : "interrupted");
  }

  /** In an iteration whose first step's requests all wait for a connection: nothing of it was sent. */
  get unstarted(): boolean {
    if (!this.busy || this.startedSteps !== 1) return false;
    let active = 0;
    for (const exchange of this.exchanges) {
      if (!exchange.active) continue;
      if (!exchange.waitingAtGate) return false;
      active++;
    }
    return active > 0;
  }

  private unsentSoFar(): boolean {
    return this.startedSteps <= 1 && this.exchanges.every((exchange) => exchange.neverSent);
  }

  exchangeDone(exchange: RequestExchange, failure: [ErrorKind, string] | null): void {
    if (this.parallelRunning > 0) {
      this.parallelFailure ??= failure;
      if (!this.aborting && this.parallelNext < this.parallelQueue.length) {
        const index = this.parallelQueue[this.parallelNext++];
        const iteration = this.iteration;
        // Let the client release the socket first (as between sequential steps). An abort in
        // between ends this one unsent; an iteration that ended meanwhile is not this one's.
        queueMicrotask(() => {
          if (this.iteration !== iteration || !this.busy) return;
          if (this.aborting) this.exchangeDone(exchange, null);
          else exchange.start(index, -1);
        });
        return;
      }
      if (--this.parallelRunning > 0) return;
      failure = this.parallelFailure;
    }
    if (this.aborting) {
      this.endIteration(this.unsentSoFar() ? "unsent" : "interrupted");
      return;
    }
    this.stepDone(failure, exchange.answeredOnFreeConnection);
  }

  wsDone(failure: [ErrorKind, string] | null): void {
    this.stepDone(failure);
  }

  grpcDone(failure: [ErrorKind, string] | null): void {
    this.stepDone(failure);
  }

  /**
   * The current step is over: on to think time and the next one. `atOnce`: the step's connection
   * is back in its pool already (see RequestExchange.answeredOnFreeConnection).
   */
  private stepDone(failure: [ErrorKind, string] | null, atOnce = false): void {
    this.cursor.requestDone(failure);
    const pause = this.ctx.thinks ? drawThinkTime(this.ctx.thinkTime) : 0;
    if (pause > 0) this.thinkTimer = setTimeout(this.next, pause);
    else if (atOnce) this.next();
    // Let the client release the socket before the next dispatch picks one.
    else queueMicrotask(this.next);
  }

  private readonly endExhausted = () => {
    this.endIteration("exhausted");
  };

  private endIteration(outcome: IterationOutcome): void {
    this.outcome = outcome;
    this.iteration++;
    this.busy = false;
    this.aborting = false;
    this.parallelRunning = 0;
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.(this);
  }
}
