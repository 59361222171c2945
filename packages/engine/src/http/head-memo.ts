import type { HeaderSelection } from "./head-bytes.js";

/** Most heads scanned without remembering one, when they keep differing. */
const MAX_SKIP = 64;

/**
 * What a response head says (`ResponseParser` fills it in as it scans one), and the bytes of the
 * last head that handed over no header strings. A server under load answers with the same head
 * again and again (nginx changes only its Date, once a second): a head equal byte for byte to the
 * remembered one, read with the same header selection, says the same, so one native comparison
 * stands in for the scan and its checks. A head whose header strings were handed over is not
 * remembered: the strings belong to that response's reader. Remembered bytes handed to a reader
 * (a script's answer keeps its head) are never written again: the next head to remember gets a
 * new buffer, so the reader is handed them instead of a copy.
 */
export class HeadMemo {
  code = 0;
  statusText = "";
  /** -1: no Content-Length. */
  contentLength = -1;
  transferEncoding = false;
  /** The last transfer coding is chunked. */
  chunked = false;
  /** The connection may carry another request, as far as the head says. */
  keepAlive = true;
  /** `Keep-Alive: timeout=N`, in seconds; -1 without one. */
  keepAliveHintS = -1;
  private bytes: Buffer | null = null;
  /** The remembered head's length; -1 when none is remembered. */
  private length = -1;
  private selection: HeaderSelection = false;
  /** The bytes went to a reader: the next head to remember gets a new buffer. */
  private handedOut = false;
  /** Remembered heads the next one differed from, in a row. */
  private misses = 0;
  /** Heads still to scan without remembering them (after misses in a row). */
  private skip = 0;

  /** The remembered head's length when it was read with `selection`; -1 otherwise, or when none is. */
  lengthFor(selection: HeaderSelection): number {
    return this.selection === selection ? this.length : -1;
  }

  /** Whether bytes `from`..`to` are the remembered head, read with the same `selection`. */
  matches(bytes: Buffer, from: number, to: number, selection: HeaderSelection): boolean {
    if (this.length < 0) return false;
    if (
      this.length === to - from &&
      this.selection === selection &&
      (this.bytes as Buffer).compare(bytes, from, to, 0, this.length) === 0
    ) {
      this.misses = 0;
      return true;
    }
    this.misses++;
    return false;
  }

  /**
   * The scan that just filled the fields read bytes `from`..`to` of `bytes` with `selection`:
   * remembers a copy of them, unless heads keep differing (a request id in each): then one head
   * in up to 64 is, to see whether they settled, and such a server costs next to nothing more than
   * the scan. Whether it did.
   */
  remember(bytes: Buffer, from: number, to: number, selection: HeaderSelection): boolean {
    if (this.skip > 0) {
      // The last one skipped is remembered: have the heads settled?
      if (--this.skip > 0) return false;
    } else if (this.misses >= 2) {
      this.skip = Math.min(MAX_SKIP, 2 ** this.misses);
      return false;
    }
    // Written over only while no reader has it.
    if (this.bytes === null || this.handedOut || this.bytes.length !== to - from) {
      this.bytes = Buffer.allocUnsafe(to - from);
      this.handedOut = false;
    }
    bytes.copy(this.bytes, 0, from, to);
    this.length = to - from;
    this.selection = selection;
    return true;
  }

  /** The remembered head's bytes (after `matches` or `remember`): kept unchanged for good. */
  get remembered(): Buffer {
    this.handedOut = true;
    return this.bytes as Buffer;
  }

  /** A scan is filling the fields in: what they said of the remembered head no longer holds. */
  forget(): void {
    this.length = -1;
  }
}
