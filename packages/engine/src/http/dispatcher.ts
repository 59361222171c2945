import { Pool } from "undici";

/** Options of the one connection pool a thread uses for its target. */
export interface HttpPoolOptions {
  /** Origin of the target, e.g. "http://127.0.0.1:8080". */
  origin: string;
  /** Most sockets open at once; one per VU keeps every VU from waiting on another's socket. */
  connections: number;
  /** Idle keep-alive sockets are closed after this long. @defaultValue 4000 */
  keepAliveTimeoutMs: number;
  /** @defaultValue 10000 */
  connectTimeoutMs: number;
  /** Accept any TLS certificate. @defaultValue false */
  insecureTls?: boolean;
}

export class InvalidOptionError extends Error {
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = "InvalidOptionError";
  }
}

/**
 * One undici Pool per origin per thread: keep-alive sockets are reused by every VU of the thread,
 * idle ones close after keepAliveTimeout, and `close()` at the end of a run closes them all.
 */
export function createHttpPool(options: HttpPoolOptions): Pool {
  if (!Number.isInteger(options.connections) || options.connections < 1) {
    throw new InvalidOptionError("connections", `must be a positive integer, got ${options.connections}`);
  }
  if (!(options.keepAliveTimeoutMs > 0)) {
    throw new InvalidOptionError("keepAliveTimeoutMs", `must be positive, got ${options.keepAliveTimeoutMs}`);
  }
  return new Pool(options.origin, {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // A server's Keep-Alive hint may shorten, never lengthen, the idle time we chose.
    keepAliveMaxTimeout: options.keepAliveTimeoutMs,
    keepAliveTimeoutThreshold: Math.min(1000, options.keepAliveTimeoutMs / 2),
    connect: { timeout: options.connectTimeoutMs, rejectUnauthorized: !options.insecureTls },
  });
}
