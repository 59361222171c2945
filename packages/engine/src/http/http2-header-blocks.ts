import { HpackDecoder, HpackError } from "./hpack/hpack-decoder.js";
import { HuffmanError } from "./hpack/huffman.js";
import { FLAG } from "./http2-frames.js";
import { type HeaderSelection, MAX_HEAD_BYTES } from "./response-parser.js";

/** A header block that breaks HTTP/2 framing or HPACK: the connection ends (`compression`: HPACK's). */
export class HeaderBlockError extends Error {
  constructor(
    message: string,
    readonly compression = false,
  ) {
    super(message);
  }
}

/**
 * A connection's header blocks, one at a time: a HEADERS frame and its CONTINUATIONs gathered
 * (at most MAX_HEAD_BYTES), then decoded by the connection's one HPACK decoder into the
 * `:status` and the fields the stream's handler reads. Every block is decoded, wanted or not:
 * the decoder's table must see each one, in order.
 */
export class HeaderBlocks {
  /** The stream whose block is being gathered; 0 between blocks. */
  stream = 0;
  /** The block's HEADERS frame ended the stream. */
  endStream = false;
  /** The last decoded block's `:status`, and the fields read ([name, value, ...]; null: none wanted). */
  status = "";
  raw: string[] | null = null;
  private parts: Buffer[] = [];
  private bytes = 0;
  private wanted: HeaderSelection = false;
  private readonly decoder = new HpackDecoder(MAX_HEAD_BYTES);
  private readonly onHeader = (name: string, value: string) => {
    if (name === ":status") this.status = value;
    else if (this.raw !== null && name.charCodeAt(0) !== 58 /* ":" */) {
      if (this.wanted === true || (this.wanted !== false && this.wanted.includes(name)))
        this.raw.push(name, value);
    }
  };

  /** A HEADERS frame's payload `bytes[start, end)`: its block fragment, padding and priority cut. */
  begin(id: number, flags: number, bytes: Uint8Array, start: number, end: number): void {
    if (id === 0) throw new HeaderBlockError("HEADERS on stream 0");
    let from = start;
    let to = end;
    if (flags & FLAG.PADDED) {
      if (from >= to) throw new HeaderBlockError("bad HEADERS padding");
      to -= bytes[from++];
    }
    if (flags & FLAG.PRIORITY) from += 5;
    if (to < from) throw new HeaderBlockError("bad HEADERS padding");
    this.stream = id;
    this.endStream = (flags & FLAG.END_STREAM) !== 0;
    this.parts = [];
    this.bytes = 0;
    this.add(bytes, from, to);
  }

  /** A CONTINUATION frame's payload. */
  add(bytes: Uint8Array, start: number, end: number): void {
    this.bytes += end - start;
    if (this.bytes > MAX_HEAD_BYTES)
      throw new HeaderBlockError(`a header block over ${MAX_HEAD_BYTES} bytes`);
    this.parts.push(Buffer.from(bytes.subarray(start, end)));
  }

  /** Decodes the gathered block, keeping the fields `wanted` (false: none, e.g. trailers). */
  decode(wanted: HeaderSelection): void {
    const parts = this.parts;
    const block = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.stream = 0;
    this.parts = [];
    this.wanted = wanted;
    this.raw = wanted === false ? null : [];
    this.status = "";
    try {
      this.decoder.decode(block, 0, block.length, this.onHeader);
    } catch (error) {
      if (error instanceof HpackError || error instanceof HuffmanError) {
        throw new HeaderBlockError(error.message, true);
      }
      throw error;
    }
  }
}
