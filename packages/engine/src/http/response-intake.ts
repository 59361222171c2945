import { STATUS_CODES } from "node:http";
import { performance } from "node:perf_hooks";
import { copyOf } from "./byte-copy.js";
import type { HeadAwareHandler } from "./client-handler.js";
import { responseHeadBytes } from "./head-size.js";

/** The whole request took longer than its timeout (a body that trickles in forever, say). */
/**
 * A body to keep that has no chunk yet: shared and frozen, never pushed to (the first chunk makes
 * a list of one; an empty one grows to seventeen places at its first push).
 */
const NO_CHUNKS: Buffer[] = Object.freeze([]) as unknown as Buffer[];

const DEADLINE = Object.assign(new Error("the request took longer than its timeout"), {
  code: "UND_ERR_BODY_TIMEOUT",
});

/**
 * What every request of the engine measures of its exchange with the target, declarative or
 * scripted: the moment it is handed a connection (its latency counts from there, or from an
 * arrival-rate schedule), the bytes both ways as they went on the wire, the body kept up to
 * `maxBodyBytes` when something reads it (the rest counted and dropped), and its deadline for
 * the whole request. Subclasses are the client's handlers; they add what they do with the answer.
 */
export abstract class ResponseIntake implements HeadAwareHandler {
  protected status = 0;
  protected bytesIn = 0;
  /** An estimate until Volley's client says the exact count (onRequestBytes); undici's does not. */
  protected bytesOut = 0;
  /** Body chunks, kept only when a capture, expectation or script reads the body. */
  protected chunks: Buffer[] | null = null;
  /** The body passed maxBodyBytes: the rest was counted and discarded. */
  protected bodyTooLarge = false;
  /** When it was handed a connection (its deadline counts from here). */
  protected sentAt = 0;
  /** What its latency counts from; -1 until it is handed a connection. */
  protected startedAt = -1;
  protected abortRequest: ((reason?: Error) => void) | null = null;
  /** The head's exact size when the client says it (Volley's client); -1 to count from the headers. */
  private headBytes = -1;
  private keptBytes = 0;
  private chunksSeen = 0;
  /** The phases of the request (µs), when the client said them (onPhases); waitingUs -1 until then. */
  protected connectUs = 0;
  protected tlsUs = 0;
  protected sendingUs = 0;
  protected waitingUs = -1;
  /** performance.now() of the answer's first byte (its head, for a client that says no phases). */
  protected firstByteAt = -1;
  /** performance.now() the answer ended, when the client said it (onEndedAt); -1 until then. */
  private endedAt = -1;

  /** Longest the whole request may take, ms. */
  protected abstract get timeoutMs(): number;
  /** Most body bytes kept. */
  protected abstract get maxBodyBytes(): number;

  /**
   * Ready for a new request (or a redirect's hop): `keepBody` when something reads the body,
   * `bytesOut` the estimate, `startedAt` an arrival-rate schedule or -1.
   */
  protected beginIntake(keepBody: boolean, bytesOut: number, startedAt: number): void {
    this.status = 0;
    this.bytesIn = 0;
    this.bytesOut = bytesOut;
    this.headBytes = -1;
    this.chunks = keepBody ? NO_CHUNKS : null;
    this.keptBytes = 0;
    this.chunksSeen = 0;
    this.bodyTooLarge = false;
    this.abortRequest = null;
    this.startedAt = startedAt;
    this.connectUs = this.tlsUs = this.sendingUs = 0;
    this.waitingUs = -1;
    this.firstByteAt = -1;
    this.endedAt = -1;
  }

  /** It is handed a connection at `at` (now): the deadline, and the latency unless a schedule set it. */
  protected markSent(at: number): void {
    this.sentAt = at;
    if (this.startedAt < 0) this.startedAt = at;
  }

  /** When the answer ended, as the client said, else now. */
  protected endAt(): number {
    return this.endedAt >= 0 ? this.endedAt : performance.now();
  }

  /** Microseconds from what the latency counts from to `endedAt`: the answer's end (or now, before it). */
  protected latencyUs(endedAt = this.endAt()): number {
    return (endedAt - this.startedAt) * 1000;
  }

  /** The head's bytes, once the client read it (`onHeaders` calls this). */
  protected countHead(statusText: string | undefined, rawHeaders: Buffer[] | string[], status: number): void {
    // undici's proxy wrapper (plain HTTP through a proxy) passes no status text: the standard one.
    const text = statusText ?? STATUS_CODES[status] ?? "";
    this.bytesIn += responseHeadBytes(this.headBytes, text, rawHeaders);
    if (this.firstByteAt < 0) this.firstByteAt = performance.now();
  }

  onPhases(connectMs: number, tlsMs: number, readyAt: number, writtenAt: number, firstByteAt: number): void {
    // A request written before its new connection was ready went out when it was.
    const wentAt = Math.max(writtenAt, readyAt);
    this.connectUs = connectMs * 1000;
    this.tlsUs = tlsMs * 1000;
    this.sendingUs = Math.max(0, writtenAt - Math.max(this.sentAt, readyAt)) * 1000;
    this.waitingUs = Math.max(0, firstByteAt - wentAt) * 1000;
    this.firstByteAt = firstByteAt;
  }

  /** Records the request's phases beside its record, when the client measured them. */
  protected recordPhases(recorder: { recordPhases(c: number, t: number, w: number): void }): void {
    if (this.waitingUs >= 0) recorder.recordPhases(this.connectUs, this.tlsUs, this.waitingUs);
  }

  onHeadBytes(bytes: number): void {
    this.headBytes = bytes;
  }

  onRequestBytes(bytes: number): void {
    this.bytesOut = bytes;
  }

  onEndedAt(at: number): void {
    this.endedAt = at;
  }

  /** A subclass reads each body chunk as it comes (a stream's events), within `onData`. */
  protected get readsEachChunk(): boolean {
    return false;
  }

  /** Volley's client hands the body over so: counted in place; a view or a copy only when read. */
  onBodyBytes(bytes: Buffer, start: number, end: number): void {
    // Kept past the call: a copy. Read within it: a view.
    if (this.chunks !== null) this.onData(copyOf(bytes, start, end));
    else if (this.readsEachChunk) this.onData(bytes.subarray(start, end));
    else {
      this.bytesIn += end - start;
      this.checkDeadline();
    }
  }

  onData(chunk: Buffer): boolean {
    this.bytesIn += chunk.length;
    if (this.chunks !== null) {
      this.keptBytes += chunk.length;
      if (this.keptBytes > this.maxBodyBytes) {
        this.chunks = null; // drained from here on, never kept
        this.bodyTooLarge = true;
      } else if (this.chunks.length === 0) {
        this.chunks = [chunk];
      } else {
        this.chunks.push(chunk);
      }
    }
    this.checkDeadline();
    return true;
  }

  /**
   * After a chunk: undici's bodyTimeout is idle time between chunks; the timeout is for the whole
   * request. A one-chunk body is covered by the headers timeout: the clock is read from the second on.
   */
  private checkDeadline(): void {
    if (++this.chunksSeen > 1 && performance.now() - this.sentAt > this.timeoutMs) {
      this.abortRequest?.(DEADLINE);
    }
  }
}
