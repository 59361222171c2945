import { HEX_RE, MAX_HEAD_BYTES, TOKEN_RE } from "./head-bytes.js";
import type { ReadCarry } from "./read-carry.js";

/** Longest chunk-size line, extensions included. */
const MAX_CHUNK_LINE = 4096;
const CRLF = Buffer.from("\r\n");
const TRAILERS_END = Buffer.from("\r\n\r\n");
// Where in a chunked body the reader is.
const SIZE = 0;
const DATA = 1;
const DATA_END = 2;
const TRAILERS = 3;

/** What a chunked body tells the parser reading its response. */
export interface ChunkedBodyOwner {
  /** Chunk data `start`..`end` of `bytes`, a view of the read valid only during the call. */
  body(bytes: Buffer, start: number, end: number): void;
  /** The last chunk and the trailers were read: the response ended. */
  ended(): void;
  /** The body broke the framing: reported once; returns an offset past any read. */
  failed(message: string): number;
}

/**
 * A `Transfer-Encoding: chunked` body: chunk-size lines (extensions allowed), chunk data, the
 * CRLF after each, the last chunk and the trailer section, each possibly split across reads.
 */
export class ChunkedBody {
  private state = SIZE;
  private remaining = 0;

  constructor(
    private readonly carry: ReadCarry,
    private readonly owner: ChunkedBodyOwner,
  ) {}

  /** A new chunked body starts. */
  begin(): void {
    this.state = SIZE;
    this.remaining = 0;
  }

  /**
   * Reads from `offset` of `data` (a view that ends where the read does) until the body ends or
   * the read does; returns where it stopped (past any read when it failed).
   */
  read(data: Buffer, offset: number): number {
    while (offset < data.length) {
      switch (this.state) {
        case SIZE:
          offset = this.readSize(data, offset);
          break;
        case DATA: {
          const take = Math.min(this.remaining, data.length - offset);
          this.remaining -= take;
          this.owner.body(data, offset, offset + take);
          offset += take;
          if (this.remaining === 0) this.state = DATA_END;
          break;
        }
        case DATA_END:
          offset = this.readDataEnd(data, offset);
          break;
        case TRAILERS: {
          const at = this.readTrailers(data, offset);
          if (at >= 0) return at;
          return data.length;
        }
      }
    }
    return offset;
  }

  private readSize(data: Buffer, offset: number): number {
    const carry = this.carry;
    const joined = carry.join(data, offset);
    const start = carry.startIn(joined, data, offset);
    const end = joined.indexOf(CRLF, carry.searchFrom(start, 2));
    if (end < 0 || end - start > MAX_CHUNK_LINE) {
      if (joined.length - start > MAX_CHUNK_LINE) return this.owner.failed("a chunk-size line is too long");
      return carry.keep(joined, start, data);
    }
    const line = joined.toString("latin1", start, end);
    const semicolon = line.indexOf(";");
    const hex = (semicolon < 0 ? line : line.slice(0, semicolon)).trimEnd();
    if (!HEX_RE.test(hex)) return this.owner.failed(`a bad chunk size: ${JSON.stringify(line.slice(0, 40))}`);
    this.remaining = Number.parseInt(hex, 16);
    this.state = this.remaining === 0 ? TRAILERS : DATA;
    return carry.inRead(joined, end + 2, data, offset);
  }

  private readDataEnd(data: Buffer, offset: number): number {
    const carry = this.carry;
    const joined = carry.join(data, offset);
    const start = carry.startIn(joined, data, offset);
    if (joined.length - start < 2) {
      if (joined[start] !== 0x0d) return this.owner.failed("chunk data is not followed by CRLF");
      return carry.keep(joined, start, data);
    }
    if (joined[start] !== 0x0d || joined[start + 1] !== 0x0a)
      return this.owner.failed("chunk data is not followed by CRLF");
    this.state = SIZE;
    return carry.inRead(joined, start + 2, data, offset);
  }

  /**
   * The trailer section after the last chunk: header lines, then an empty line. Returns where
   * the response ended in this read, or -1 when it continues in the next (or failed).
   */
  private readTrailers(data: Buffer, offset: number): number {
    const carry = this.carry;
    const joined = carry.join(data, offset);
    const start = carry.startIn(joined, data, offset);
    // No trailers: the empty line comes at once.
    if (joined.length - start >= 2 && joined[start] === 0x0d && joined[start + 1] === 0x0a) {
      this.owner.ended();
      return carry.inRead(joined, start + 2, data, offset);
    }
    const end = joined.indexOf(TRAILERS_END, carry.searchFrom(start, 4));
    if (end < 0) {
      if (joined.length - start > MAX_HEAD_BYTES) this.owner.failed("the trailers are too long");
      else carry.keep(joined, start, data);
      return -1;
    }
    for (const line of joined.toString("latin1", start, end).split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon <= 0 || !TOKEN_RE.test(line.slice(0, colon))) {
        this.owner.failed(`a malformed trailer: ${JSON.stringify(line.slice(0, 60))}`);
        return -1;
      }
    }
    this.owner.ended();
    return carry.inRead(joined, end + 4, data, offset);
  }
}
