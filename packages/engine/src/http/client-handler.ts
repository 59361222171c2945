import { VolleyError } from "@volley/protocol";
import type { HeaderSelection } from "./head-bytes.js";

// What Volley's own clients (HTTP/1.1 and HTTP/2) share with the handlers they call: the errors
// they fail a request with, and what they tell a handler beyond undici's legacy callbacks.

/** Errors carry undici's codes, so one classifier sorts both clients' failures. */
export function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The target broke HTTP: the report's `protocol` kind (code VOL_ERR_PROTOCOL, docs/errors.md). */
export class ProtocolError extends VolleyError {
  constructor(message: string) {
    super("VOL_ERR_PROTOCOL", message);
    this.name = "ProtocolError";
  }
}

/** What Volley's client offers a handler beyond undici's callbacks (a VU uses both). */
export interface HeadAwareHandler {
  /**
   * Per request, the response headers the handler reads: all (true, the default), none, or those
   * named (lowercase). Strings are made only for those.
   */
  wantsHeaders?: HeaderSelection;
  /** The response head's exact size on the wire, just before `onHeaders`. */
  onHeadBytes?(bytes: number): void;
  /**
   * The response head's bytes (status line to the blank line; a buffer of their own that nothing
   * changes: the handler may keep it), just before `onHeaders`, for a handler that makes header
   * strings only when they are read. With it, `onHeaders` gets only the headers `headerStrings` names (Volley's HTTP/1.1
   * client; the other clients never call it and hand over `wantsHeaders`).
   */
  onRawHead?(head: Buffer): void;
  readonly headerStrings?: HeaderSelection;
  /** The request's exact size on the wire (head and body), once written. */
  onRequestBytes?(bytes: number): void;
  /**
   * performance.now() of the read that ended the response (or of the close that ended a body
   * read until close), just before `onComplete`: its latency ends when the bytes came, not after
   * they were parsed, and the handler reads no clock of its own.
   */
  onEndedAt?(at: number): void;
  /**
   * Where the request's time went, just before `onHeaders` (performance.now() ms): the connection's
   * TCP connect and TLS handshake (0 unless the request opened it), when it was ready to carry the
   * request, when the request was written, and when the answer's first byte came.
   */
  onPhases?(connectMs: number, tlsMs: number, readyAt: number, writtenAt: number, firstByteAt: number): void;
  /**
   * Just before `onError`: not one byte of the request reached its socket (it ended while it
   * waited for the thread's write batch). Aborted so, it was never a request.
   */
  onNeverWritten?(): void;
  /**
   * Called instead of `onData` by Volley's HTTP/1.1 client: body bytes `start`..`end` of `bytes`,
   * a view of the read valid only during the call (plain-TCP reads share one buffer per thread).
   * A handler that only counts them makes no object per chunk; one that keeps them copies them.
   */
  onBodyBytes?(bytes: Buffer, start: number, end: number): void;
}
