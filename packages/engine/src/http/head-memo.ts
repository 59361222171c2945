import type { HeaderSelection } from "./head-bytes.js";

/**
 * What a response head says (`ResponseParser` fills it in as it scans one), and the bytes of the
 * last head that handed over no header strings. A server under load answers with the same head
 * again and again (nginx changes only its Date, once a second): a head equal byte for byte to the
 * remembered one, read with the same header selection, says the same, so one native comparison
 * stands in for the scan and its checks. A head whose header strings were handed over is not
 * remembered: the strings belong to that response's reader.
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

  /** Whether bytes `from`..`to` are the remembered head, read with the same `selection`. */
  matches(bytes: Buffer, from: number, to: number, selection: HeaderSelection): boolean {
    return (
      this.length === to - from &&
      this.selection === selection &&
      (this.bytes as Buffer).compare(bytes, from, to, 0, this.length) === 0
    );
  }

  /** The scan that just filled the fields read bytes `from`..`to` of `bytes` with `selection`. */
  remember(bytes: Buffer, from: number, to: number, selection: HeaderSelection): void {
    const length = to - from;
    if (this.bytes === null || this.bytes.length < length) this.bytes = Buffer.allocUnsafe(length);
    bytes.copy(this.bytes, 0, from, to);
    this.length = length;
    this.selection = selection;
  }

  /** A scan is filling the fields in: what they said of the remembered head no longer holds. */
  forget(): void {
    this.length = -1;
  }
}
