import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { type ConnectionTarget, connectionTarget } from "./connection-target.js";
import { type ConnectionOwner, Http1Connection } from "./http1-connection.js";
import { closedPoolError, type PoolOptions, SWEEP_MS } from "./pool-options.js";

/**
 * Volley's HTTP/1.1 client for one origin: up to `connections` keep-alive sockets, one request
 * in flight on each, idle ones reused (most recent first) and closed after keepAliveTimeout,
 * everything closed at `close()`. It speaks undici's `dispatch(options, handler)` with the legacy
 * handler callbacks, so a VU drives either client the same way. Deadlines are checked by one
 * sweep every 100 ms, not a timer per request.
 */
export class Http1Pool implements ConnectionOwner {
  /** A connection is released before its handler's onComplete (see Http1Connection.complete). */
  readonly releasesBeforeComplete = true;
  private readonly target: ConnectionTarget;
  private readonly all = new Set<Http1Connection>();
  private readonly idle: Http1Connection[] = [];
  private readonly queue: Array<[Dispatcher.DispatchOptions, Dispatcher.DispatchHandler]> = [];
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

  /** Sockets open now (busy or idle). */
  get size(): number {
    return this.all.size;
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.closing) {
      queueMicrotask(() => handler.onError?.(closedPoolError()));
      return false;
    }
    const connection = this.idle.pop() ?? this.open();
    if (connection) connection.send(options, handler);
    else this.queue.push([options, handler]);
    return true;
  }

  private open(): Http1Connection | null {
    if (this.all.size >= this.options.connections) return null;
    const connection = new Http1Connection(
      this.target,
      this,
      this.options.keepAliveTimeoutMs,
      this.options.writes ?? null,
    );
    this.all.add(connection);
    return connection;
  }

  released(connection: Http1Connection): void {
    if (this.closing) {
      connection.close();
      return;
    }
    const next = this.queue.shift();
    if (next) {
      connection.send(next[0], next[1]);
      return;
    }
    connection.idleSince = connection.readAt;
    this.idle.push(connection);
  }

  closed(connection: Http1Connection): void {
    if (!this.all.delete(connection)) return;
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    // A queued request may now have room for a socket of its own.
    if (!this.closing && this.queue.length) {
      const next = this.queue.shift() as [Dispatcher.DispatchOptions, Dispatcher.DispatchHandler];
      this.dispatch(next[0], next[1]);
    }
    if (this.closing && this.all.size === 0) this.whenClosed?.();
  }

  retry(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
    // On a fresh socket: the idle ones may have been closed by the server the same way.
    const connection = this.closing ? null : this.open();
    if (connection) connection.send(options, handler);
    else if (this.closing) handler.onError?.(closedPoolError());
    else this.queue.push([options, handler]);
  }

  /** No new requests; resolves once the requests in flight are answered and every socket is closed. */
  close(): Promise<void> {
    this.closing = true;
    for (const [, handler] of this.queue.splice(0)) handler.onError?.(closedPoolError());
    for (const connection of this.idle.splice(0)) connection.close();
    if (this.all.size === 0) {
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

  /** Aborts the requests in flight and closes every socket now. */
  destroy(): Promise<void> {
    const closing = this.close();
    for (const connection of [...this.all]) connection.destroy(closedPoolError());
    return closing;
  }

  private sweep(): void {
    const now = performance.now();
    for (const connection of this.all) {
      if (now > connection.deadline) connection.timedOut();
    }
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const connection = this.idle[i];
      if (now - connection.idleSince > connection.idleTimeoutMs) {
        this.idle.splice(i, 1);
        connection.close();
      }
    }
  }
}
