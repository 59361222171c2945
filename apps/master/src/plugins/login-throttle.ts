import { VolleyError } from "@volley/protocol";
import type { FastifyBaseLogger } from "fastify";

/** Failed logins one address may make per window before it is refused. */
export const MAX_FAILED_LOGINS = 10;
const WINDOW_MS = 60_000;
/** Addresses tracked at once; the oldest window goes first past it. */
const MAX_ADDRESSES = 50_000;

/**
 * Failed sign-ins per client address (and per user name) in fixed one-minute windows: past MAX_FAILED_LOGINS the
 * address is refused until its window ends (guessing a token went at 1,157 tries a second).
 */
export class LoginThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether `address` may try now. */
  allowed(address: string): boolean {
    const window = this.windows.get(address);
    if (window === undefined || this.now() - window.start >= WINDOW_MS) return true;
    return window.failures < MAX_FAILED_LOGINS;
  }

  /** Throws 429 when `key` (an address, or "user:NAME") is past its failed tries this minute. */
  check(key: string, log: FastifyBaseLogger): void {
    if (this.allowed(key)) return;
    log.warn({ key }, "sign-in refused: too many failed tries");
    throw new VolleyError("VOL_ERR_RATE_LIMITED", "too many failed sign-ins: wait a minute");
  }

  failed(address: string): void {
    const now = this.now();
    let window = this.windows.get(address);
    if (window === undefined || now - window.start >= WINDOW_MS) {
      this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) this.windows.delete(this.windows.keys().next().value as string);
      window = { start: now, failures: 0 };
      this.windows.set(address, window);
    }
    window.failures++;
  }
}
