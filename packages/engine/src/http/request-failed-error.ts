import type { ErrorKind } from "@volley/protocol";

/**
 * A request (an HTTP request, a WebSocket handshake or an awaited message) that got no usable
 * answer: refused, reset, timed out, closed, aborted. Counted already where it failed; a script
 * that does not catch it ends its iteration quietly, not with a script error.
 */
export class RequestFailedError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** What happened, without the kind. */
    readonly reason: string,
  ) {
    super(`${kind}: ${reason}`);
    this.name = "RequestFailedError";
  }
}
