import { decodeHuffman } from "./huffman.js";
import { STATIC_TABLE } from "./static-table.js";

/** A header block that breaks HPACK (RFC 7541): a COMPRESSION_ERROR of the whole connection. */
export class HpackError extends Error {}

/** The dynamic table's size we allow the server (SETTINGS_HEADER_TABLE_SIZE, the default). */
export const DECODER_TABLE_SIZE = 4096;

/**
 * The decoding side of one connection's HPACK context: every header block the server sends goes
 * through it, in order (a block of a stream nobody waits for too, or the table falls out of
 * step). The dynamic table is bounded by DECODER_TABLE_SIZE; a header list by `maxListBytes`.
 */
export class HpackDecoder {
  /** Newest first. */
  private readonly entries: Array<readonly [string, string]> = [];
  private size = 0;
  private maxSize = DECODER_TABLE_SIZE;

  constructor(private readonly maxListBytes: number) {}

  /** Calls `onHeader` with each field of `block[start, end)`, in order. Throws HpackError. */
  decode(
    block: Uint8Array,
    start: number,
    end: number,
    onHeader: (name: string, value: string) => void,
  ): void {
    let at = start;
    let listBytes = 0;
    let fields = 0;
    const integer = (prefixBits: number): number => {
      const mask = (1 << prefixBits) - 1;
      let value = block[at++] & mask;
      if (value < mask) return value;
      let shift = 0;
      for (;;) {
        if (at >= end || shift > 21) throw new HpackError("a bad integer in a header block");
        const byte = block[at++];
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if ((byte & 0x80) === 0) return value;
      }
    };
    const string = (): string => {
      if (at >= end) throw new HpackError("a header block ends inside a string");
      const huffman = (block[at] & 0x80) !== 0;
      const length = integer(7);
      if (length > end - at) throw new HpackError("a string past the end of its header block");
      const from = at;
      at += length;
      return huffman
        ? decodeHuffman(block, from, at)
        : Buffer.from(block.buffer, block.byteOffset + from, length).toString("latin1");
    };
    const emit = (name: string, value: string) => {
      listBytes += name.length + value.length + 32;
      if (listBytes > this.maxListBytes)
        throw new HpackError(`a header list over ${this.maxListBytes} bytes`);
      fields++;
      onHeader(name, value);
    };
    while (at < end) {
      const first = block[at];
      if (first & 0x80) {
        const [name, value] = this.entry(integer(7));
        emit(name, value);
      } else if (first & 0x40) {
        const index = integer(6);
        const name = index === 0 ? string() : this.entry(index)[0];
        const value = string();
        this.add(name, value);
        emit(name, value);
      } else if (first & 0x20) {
        // A table size update: only before the first field, never past what we allow.
        const size = integer(5);
        if (fields > 0 || size > DECODER_TABLE_SIZE) throw new HpackError("a bad dynamic table size update");
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing (0000) or never indexed (0001): the table is untouched.
        const index = integer(4);
        const name = index === 0 ? string() : this.entry(index)[0];
        emit(name, string());
      }
    }
  }

  private entry(index: number): readonly [string, string] {
    if (index >= 1 && index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1];
    const entry = this.entries[index - STATIC_TABLE.length - 1];
    if (index === 0 || entry === undefined) throw new HpackError(`header index ${index} is not in the table`);
    return entry;
  }

  private add(name: string, value: string): void {
    const bytes = name.length + value.length + 32;
    this.evict(bytes);
    if (bytes > this.maxSize) return; // larger than the table: it empties it (§4.4)
    this.entries.unshift([name, value]);
    this.size += bytes;
  }

  /** Drops the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.entries.length > 0 && this.size + room > this.maxSize) {
      const [name, value] = this.entries.pop() as readonly [string, string];
      this.size -= name.length + value.length + 32;
    }
  }
}
