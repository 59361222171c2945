import type { Scenario } from "@volley/protocol";
import { createHttpPool } from "../http/dispatcher.js";
import type { WriteBatch } from "../http/write-batch.js";
import type { ConnectionSettings } from "../network/connection-settings.js";
import { ConnectionGate } from "../vu/connection-gate.js";
import type { VuOrigin } from "../vu/vu-context.js";

/**
 * A thread's connection pools, one per origin, each with the gate that admits requests into it:
 * the scenario's origins at the start, and any other a script calls, made on first use. All of
 * them close at the end of the slice.
 */
export class ThreadPools {
  private readonly byOrigin = new Map<string, VuOrigin>();

  constructor(
    private readonly http: Scenario["http"],
    private readonly network: ConnectionSettings,
    /** Sockets per origin (HTTP/2: sessions). */
    private readonly sockets: number,
    /** Requests in flight per origin. */
    private readonly inFlight: number,
    /** The thread's HTTP/1.1 write batch (Volley's own client). */
    private readonly writes: WriteBatch | null = null,
  ) {}

  /** The pool and gate of `origin` ("https://host:port"), made on first use. */
  get(origin: string): VuOrigin {
    const known = this.byOrigin.get(origin);
    if (known) return known;
    const url = new URL(origin);
    const https = url.protocol === "https:";
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const made: VuOrigin = {
      dispatcher: createHttpPool({
        origin,
        connections: this.sockets,
        keepAliveTimeoutMs: this.http.keepAliveTimeout,
        connectTimeoutMs: this.http.connectTimeout,
        server: this.network.forServer(host, Number(url.port) || (https ? 443 : 80), https),
        version: this.http.version,
        client: this.http.client,
        writes: this.writes,
      }),
      gate: new ConnectionGate(this.inFlight),
      host: url.host,
      https,
    };
    this.byOrigin.set(origin, made);
    return made;
  }

  /** Requests the gates let through so far, every origin's. */
  admitted(): number {
    let total = 0;
    for (const origin of this.byOrigin.values()) total += origin.gate.admitted;
    return total;
  }

  /** No new requests; resolves once every socket of every pool is closed. */
  async close(): Promise<void> {
    await Promise.all([...this.byOrigin.values()].map((origin) => origin.dispatcher.close()));
  }
}
