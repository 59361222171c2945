import type { ServerConnectOptions } from "../network/connection-settings.js";
import { codedError } from "./client-handler.js";
import type { WriteBatch } from "./write-batch.js";

/** What Volley's pools (HTTP/1.1 and HTTP/2) are made with. */
export interface PoolOptions {
  /** Most connections open at once (HTTP/2: sessions); one per VU keeps every VU from waiting on another's socket. */
  connections: number;
  keepAliveTimeoutMs: number;
  connectTimeoutMs: number;
  /** Hosts, DNS and TLS settings of the origin's server (default: system DNS, verified TLS; client certificate). */
  server?: ServerConnectOptions;
  /** HTTP/1.1: the thread's write batch (default: every request written at once). */
  writes?: WriteBatch | null;
}

/** How often a pool looks at deadlines, connects and idle connections (one sweep, no timer per request). */
export const SWEEP_MS = 100;

/** What a request hears from a pool that is closing (undici's code, so one classifier sorts it). */
export const closedPoolError = (): Error => codedError("UND_ERR_CLOSED", "the pool is closed");
