import { ChunkedBody } from "./chunked-body.js";
import { type HeaderSelection, MAX_HEAD_BYTES } from "./head-bytes.js";
import { HeadMemo } from "./head-memo.js";
import { NO_HEADERS, scanHead } from "./head-scan.js";
import { ReadCarry } from "./read-carry.js";

/**
 * A strict, incremental HTTP/1.1 response parser for a client with one request in flight per
 * connection. It is fed whatever the socket reads (a response split across any number of reads,
 * or several in one) and calls its listener: head, body chunks (ranges of the input, never
 * copies), end. A chunked body is read by `chunked-body.ts`; a part cut across reads is carried
 * by `read-carry.ts`. Anything that is not HTTP/1.x is reported once through `onParseError` and the
 * parser stops: the connection must be destroyed.
 */

/** What the parser reports, in order: (onResponseHead, onResponseBody*, onResponseEnd)* or onParseError. */
export interface ResponseListener {
  /**
   * `rawHeaders`: name, value, ... (empty unless `keepHeaders`); `headBytes`: the head's size on
   * the wire; `head`: its bytes (status line to the blank line) when `keepHead` was asked, else
   * null: a buffer of their own that nothing changes, the listener may keep it.
   */
  onResponseHead(
    status: number,
    statusText: string,
    rawHeaders: string[],
    headBytes: number,
    head: Buffer | null,
  ): void;
  /**
   * Body bytes `start`..`end` of `bytes`: a view of the read, valid only during the call (the
   * engine's plain-TCP reads share one buffer); a listener that keeps them copies them.
   */
  onResponseBody(bytes: Buffer, start: number, end: number): void;
  /** `keepAlive`: the connection may carry another request. */
  onResponseEnd(keepAlive: boolean): void;
  onParseError(message: string): void;
}

export { type HeaderSelection, MAX_HEAD_BYTES } from "./head-bytes.js";

const HEAD_END = Buffer.from("\r\n\r\n");
// Parser states.
const HEAD = 0;
const BODY_LENGTH = 1;
const CHUNKED = 2;
const BODY_UNTIL_CLOSE = 3;
const FAILED = 4;
// readKnownHead's answers other than an offset.
const NOT_KNOWN = -1;
const TRIED = -2;

export class ResponseParser {
  /** Set before each request: a response to HEAD has no body whatever its headers say. */
  headRequest = false;
  /**
   * Which of the head's headers are handed over (`rawHeaders`): all, none, or only those named
   * (lowercase). No strings are made for the others; the ones framing the body are read anyway.
   */
  keepHeaders: HeaderSelection = true;
  /** Hand over the head's bytes too (`onResponseHead`'s `head`). */
  keepHead = false;
  /** What the last head said, and its bytes when they can stand in for the next scan. */
  private readonly head = new HeadMemo();
  private state = HEAD;
  /** Bytes of an incomplete head, chunk-size line or trailer section carried to the next read. */
  private readonly carry = new ReadCarry();
  private readonly chunked: ChunkedBody;
  private remaining = 0;
  private keepAlive = true;
  /** Reading stopped after a response ended (`oneResponse`): the rest of the read is not asked for. */
  private paused = false;

  /**
   * `oneResponse`: stop after each response until `expectResponse` (a client with one request in
   * flight); otherwise read response after response.
   */
  constructor(
    private readonly listener: ResponseListener,
    private readonly oneResponse = false,
  ) {
    this.chunked = new ChunkedBody(this.carry, {
      body: (bytes, start, end) => listener.onResponseBody(bytes, start, end),
      ended: () => this.end(),
      failed: (message) => this.fail(message),
    });
  }

  /**
   * The next request went out: read its response (`head`: it was a HEAD request; `keepHeaders`:
   * hand over its headers).
   */
  expectResponse(head: boolean, keepHeaders: HeaderSelection = true, keepHead = false): void {
    this.headRequest = head;
    this.keepHeaders = keepHeaders;
    this.keepHead = keepHead;
    this.paused = false;
  }

  /** The last head's `Keep-Alive: timeout=N`, in seconds; -1 without one. */
  get keepAliveHintS(): number {
    return this.head.keepAliveHintS;
  }

  /** True while a response is being read (its head has started arriving). */
  get inResponse(): boolean {
    return this.state !== HEAD || this.carry.pending !== null;
  }

  /**
   * Reads what the socket read: bytes `start`..`end` of `data` (a read into a buffer shared by
   * every connection, or a batch of reads, is not cut to a view of its own: one object less per
   * read). Returns where the bytes it used end (`end`, unless it paused or failed).
   */
  execute(data: Buffer, end = data.length, start = 0): number {
    let offset = start;
    // What lies past `end` is an earlier read's: a search for a line's end needs a view that stops
    // there. Made only when a search runs (a head read by its memo, a body, need none).
    let view: Buffer | null = end === data.length ? data : null;
    while (offset < end && this.state !== FAILED && !this.paused) {
      switch (this.state) {
        case HEAD: {
          const known = this.readKnownHead(data, offset, end);
          if (known >= 0) offset = known;
          else {
            view ??= data.subarray(0, end);
            offset = this.readHead(view, offset, known === TRIED);
          }
          break;
        }
        case BODY_LENGTH: {
          const take = Math.min(this.remaining, end - offset);
          this.remaining -= take;
          this.listener.onResponseBody(data, offset, offset + take);
          offset += take;
          if (this.remaining === 0) this.end();
          break;
        }
        case CHUNKED:
          view ??= data.subarray(0, end);
          offset = this.chunked.read(view, offset);
          break;
        case BODY_UNTIL_CLOSE:
          this.listener.onResponseBody(data, offset, end);
          offset = end;
          break;
      }
    }
    return Math.min(offset, end);
  }

  /**
   * The connection closed. A body read until close ends here; anything else in the middle of a
   * response is the caller's error to report (returns false).
   */
  finish(): boolean {
    if (this.state === BODY_UNTIL_CLOSE) {
      this.state = HEAD;
      this.listener.onResponseEnd(false);
      return true;
    }
    return false;
  }

  /** Stops reading for good, without a report (the request was aborted; the socket is going). */
  stop(): void {
    this.state = FAILED;
    this.carry.pending = null;
  }

  private fail(message: string): number {
    this.state = FAILED;
    this.carry.pending = null;
    this.listener.onParseError(message);
    return Number.MAX_SAFE_INTEGER;
  }

  /**
   * The head at `offset` when it is the remembered one (see HeadMemo), found without a search:
   * its blank line comes where the remembered head's did and the bytes before it are the same,
   * so the first CRLFCRLF is there too, as it was in the remembered head. Returns where the body
   * starts, NOT_KNOWN, or TRIED (compared and differed: the memo has counted its miss).
   */
  private readKnownHead(data: Buffer, offset: number, end: number): number {
    if (this.carry.pending !== null) return NOT_KNOWN;
    const length = this.head.lengthFor(this.keepHeaders);
    const at = offset + length;
    if (length < 0 || at + 4 > end) return NOT_KNOWN;
    if (data[at] !== 13 || data[at + 1] !== 10 || data[at + 2] !== 13 || data[at + 3] !== 10)
      return NOT_KNOWN;
    if (!this.head.matches(data, offset, at, this.keepHeaders)) return TRIED;
    if (!this.parseHead(data, offset, at, true)) return Number.MAX_SAFE_INTEGER;
    return at + 4;
  }

  /** `tried`: the memo was compared with this head already, and differed. */
  private readHead(data: Buffer, offset: number, tried: boolean): number {
    const carry = this.carry;
    const joined = carry.join(data, offset);
    const start = carry.startIn(joined, data, offset);
    const end = joined.indexOf(HEAD_END, carry.searchFrom(start, 4));
    if (end < 0) {
      if (joined.length - start > MAX_HEAD_BYTES)
        return this.fail(`the response head is over ${MAX_HEAD_BYTES} bytes`);
      return carry.keep(joined, start, data);
    }
    if (end - start > MAX_HEAD_BYTES) return this.fail(`the response head is over ${MAX_HEAD_BYTES} bytes`);
    // A head the memo differed from is not the remembered one, wherever its end turned out to be.
    const matched = !tried && this.head.matches(joined, start, end, this.keepHeaders);
    if (!this.parseHead(joined, start, end, matched)) return Number.MAX_SAFE_INTEGER;
    return carry.inRead(joined, end + 4, data, offset);
  }

  /**
   * Reads a status line and headers (bytes `from`..`to` of `bytes`); sets the body mode. `matched`:
   * they are the remembered head's (HeadMemo.matches said so), no scan needed. False when it failed.
   */
  private parseHead(bytes: Buffer, from: number, to: number, matched: boolean): boolean {
    const head = this.head;
    let rawHeaders = NO_HEADERS;
    let remembered = true;
    if (!matched) {
      const scanned = scanHead(bytes, from, to, this.keepHeaders, head);
      if (typeof scanned === "string") {
        this.fail(scanned);
        return false;
      }
      if (head.code < 200) {
        // 1xx: informational, the real answer follows (101 would switch protocols: never asked for).
        if (head.code !== 101) return true;
        this.fail("101 Switching Protocols to a request that asked for no upgrade");
        return false;
      }
      rawHeaders = scanned;
      remembered = rawHeaders === NO_HEADERS && head.remember(bytes, from, to, this.keepHeaders);
    }
    this.keepAlive = head.keepAlive;
    const code = head.code;
    this.listener.onResponseHead(
      code,
      head.statusText,
      rawHeaders,
      to - from + 4,
      !this.keepHead ? null : remembered ? head.remembered : Buffer.from(bytes.subarray(from, to)),
    );
    if (this.state === FAILED) return false;
    if (this.headRequest || code === 204 || code === 304) {
      this.end();
    } else if (head.transferEncoding) {
      if (head.chunked) {
        this.state = CHUNKED;
        this.chunked.begin();
      } else {
        this.keepAlive = false;
        this.state = BODY_UNTIL_CLOSE;
      }
    } else if (head.contentLength >= 0) {
      this.remaining = head.contentLength;
      if (head.contentLength === 0) this.end();
      else this.state = BODY_LENGTH;
    } else {
      this.keepAlive = false;
      this.state = BODY_UNTIL_CLOSE;
    }
    return true;
  }

  private end(): void {
    this.state = HEAD;
    if (this.oneResponse) this.paused = true;
    this.listener.onResponseEnd(this.keepAlive);
  }
}
