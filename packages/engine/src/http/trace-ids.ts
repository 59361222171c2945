import { randomFillSync } from "node:crypto";
import type { TracingSettings } from "@volley/protocol";

const HEX = new TextEncoder().encode("0123456789abcdef");
/** Random bytes drawn at once: a request takes 24 (trace and span id), so a refill every 170. */
const POOL_BYTES = 4096;
const ID_BYTES = 24;
/** "00-" trace id (32) "-" span id (16) "-" flags (2). */
const HEADER_LENGTH = 55;

/**
 * W3C `traceparent` values for one engine thread's requests (`http.tracing`): a new random trace
 * and span id each (crypto random, drawn 4 KiB at a time), the sampled flag on `sample` of them.
 * One string is made per request, from a buffer of its own; nothing else is allocated.
 */
export class TraceIds {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private used = POOL_BYTES;
  private readonly header = Buffer.from(`00-${"0".repeat(32)}-${"0".repeat(16)}-00`, "latin1");

  constructor(
    private readonly settings: TracingSettings,
    /**
     * Whether requests carry it in their `headers` (`client: undici`) rather than as
     * `traceparent` of their dispatch options (Volley's clients write it themselves; the proxy
     * path moves it into the headers for undici's ProxyAgent).
     */
    readonly inHeaders: boolean,
  ) {}

  /** A new request's `traceparent`; its trace id is characters 3 to 35 (see traceIdOf). */
  next(): string {
    if (this.used + ID_BYTES > POOL_BYTES) {
      randomFillSync(this.pool);
      this.used = 0;
    }
    const { pool, header } = this;
    // Trace id at 3..35, span id at 36..52: two hex digits a byte.
    for (let i = 0; i < ID_BYTES; i++) {
      const byte = pool[this.used + i];
      const at = i < 16 ? 3 + i * 2 : 36 + (i - 16) * 2;
      header[at] = HEX[byte >> 4];
      header[at + 1] = HEX[byte & 15];
    }
    this.used += ID_BYTES;
    const sampled = this.settings.sample >= 1 || Math.random() < this.settings.sample;
    header[HEADER_LENGTH - 1] = sampled ? 0x31 : 0x30;
    return header.toString("latin1", 0, HEADER_LENGTH);
  }
}

/** The trace id of a `traceparent` made by TraceIds. */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}
