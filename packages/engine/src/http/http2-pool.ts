import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { type ConnectionTarget, connectionTarget } from "./connection-target.js";
import { Http2Headers } from "./http2-headers.js";
import { Http2Request } from "./http2-request.js";
import { Http2Connection, type SessionOwner } from "./http2-session.js";
import { closedPoolError, type PoolOptions, SWEEP_MS } from "./pool-options.js";

/**
 * Volley's HTTP/2 client for one origin (framed by hand: http2-session.ts): up to `connections` sessions,
 * each carrying as many streams as its server allows. A request goes on the session with the
 * fewest streams in flight; a new session opens while every open one is busy and there is room
 * for one more (requests wait for a session's first SETTINGS, which say how many streams it takes). Idle sessions close after keepAliveTimeout, every one at `close()`. It speaks
 * undici's `dispatch(options, handler)` with the legacy callbacks, as Volley's HTTP/1.1 pool
 * does, so a VU drives either the same way; deadlines are one sweep every 100 ms.
 */
export class Http2Pool implements SessionOwner {
  private readonly target: ConnectionTarget;
  private readonly sessions: Http2Connection[] = [];
  private readonly headers = new Http2Headers();
  /** Requests waiting for a stream slot. */
  private readonly queue: Http2Request[] = [];
  /** Request objects free for the next dispatch. */
  private readonly free: Http2Request[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;
  private whenClosed: (() => void) | null = null;

  constructor(
    origin: string,
    private readonly options: PoolOptions,
  ) {
    this.target = connectionTarget(origin, options);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Sessions open now. */
  get size(): number {
    return this.sessions.length;
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.closing) {
      queueMicrotask(() => handler.onError?.(closedPoolError()));
      return false;
    }
    const request = this.free.pop() ?? new Http2Request();
    request.take(options, handler);
    this.send(request);
    return true;
  }

  private send(request: Http2Request): void {
    const session = this.pick();
    if (session !== null) session.start(request);
    else this.queue.push(request);
  }

  /**
   * The least busy session with room. One more opens (and the request waits for it) while there
   * is room for one and every open session is busy, unless one is still connecting.
   */
  private pick(): Http2Connection | null {
    let best: Http2Connection | null = null;
    let connecting = false;
    // A session going away finishes its streams beside its replacement: it does not count.
    let open = 0;
    for (const session of this.sessions) {
      if (session.draining) continue;
      open++;
      if (session.connecting) connecting = true;
      else if (session.room > 0 && (best === null || session.inFlight.size < best.inFlight.size))
        best = session;
    }
    const more = !connecting && (best === null || best.inFlight.size > 0);
    if (more && open < this.options.connections) {
      this.sessions.push(new Http2Connection(this.target, this, this.headers));
    }
    return best;
  }

  slotFree(session: Http2Connection): void {
    while (this.queue.length > 0 && session.room > 0) {
      session.start(this.queue.shift() as Http2Request);
    }
    if (this.closing && session.inFlight.size === 0) session.close();
  }

  recycle(request: Http2Request): void {
    this.free.push(request);
  }

  retry(request: Http2Request): void {
    if (this.closing) request.fail(closedPoolError());
    else this.send(request);
  }

  closed(session: Http2Connection, failure: Error | null): void {
    const at = this.sessions.indexOf(session);
    if (at < 0) return;
    this.sessions.splice(at, 1);
    // A session that never opened: the requests waiting for one fail as it did (as undici's do),
    // rather than open session after session against a server that refuses them.
    const waiting = this.queue.splice(0);
    if (failure !== null && !this.sessions.some((other) => !other.draining && !other.connecting)) {
      for (const request of waiting) request.fail(failure);
    } else if (!this.closing) {
      // The queued requests may now have room on another session, or a new one.
      for (const request of waiting) this.send(request);
    }
    if (this.closing && this.sessions.length === 0) this.whenClosed?.();
  }

  /** No new requests; resolves once the requests in flight are answered and every session is closed. */
  close(): Promise<void> {
    this.closing = true;
    for (const request of this.queue.splice(0)) request.fail(closedPoolError());
    for (const session of this.sessions) if (session.inFlight.size === 0) session.close();
    if (this.sessions.length === 0) {
      clearInterval(this.sweeper);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.whenClosed = () => {
        clearInterval(this.sweeper);
        resolve();
      };
    });
  }

  /** Aborts the requests in flight and closes every session now. */
  destroy(): Promise<void> {
    const closing = this.close();
    for (const session of [...this.sessions]) session.destroy(closedPoolError());
    return closing;
  }

  private sweep(): void {
    const now = performance.now();
    for (const session of [...this.sessions]) {
      if (now > session.connectDeadline) {
        session.connectTimedOut();
        continue;
      }
      for (const request of session.inFlight) if (now > request.deadline) request.timedOut();
      if (session.inFlight.size === 0 && now - session.idleSince > this.options.keepAliveTimeoutMs) {
        session.close();
      }
    }
  }
}
