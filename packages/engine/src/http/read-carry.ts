/**
 * The bytes of an incomplete line or section (a head, a chunk-size line, trailers) carried from
 * one read to the next, joined with the next read's bytes, and where a position in the joined
 * bytes falls in that read. One per parser: at most one such part is incomplete at a time.
 */
export class ReadCarry {
  /** Carried bytes (a copy: the read they came from is overwritten), or null. */
  pending: Buffer | null = null;
  /** Where this read's bytes start in the buffer `join` returned. */
  private from = 0;

  /**
   * Bytes `offset`.. of this read (`data` ends where the read does), after the carried ones when
   * there are any: then a new buffer that starts with them.
   */
  join(data: Buffer, offset: number): Buffer {
    const pending = this.pending;
    if (pending === null) {
      this.from = offset;
      return data;
    }
    this.from = pending.length;
    this.pending = null;
    return Buffer.concat([pending, data.subarray(offset)]);
  }

  /** Where the part being read starts in `joined` (what `join` returned for `data` at `offset`). */
  startIn(joined: Buffer, data: Buffer, offset: number): number {
    return joined === data ? offset : 0;
  }

  /**
   * Where a search for a terminator `length` bytes long may start in `joined`: the carried bytes
   * were searched already, all but the last `length - 1` (a terminator may straddle the reads).
   */
  searchFrom(start: number, length: number): number {
    return Math.max(start, this.from - (length - 1));
  }

  /** Carries bytes `start`.. of `joined` to the next read; returns the read's end (all of it used). */
  keep(joined: Buffer, start: number, data: Buffer): number {
    this.pending = Buffer.from(joined.subarray(start));
    return data.length;
  }

  /** Where position `at` of `joined` falls in this read (`data`, read from `offset`). */
  inRead(joined: Buffer, at: number, data: Buffer, offset: number): number {
    return joined === data ? at : offset + at - this.from;
  }
}
