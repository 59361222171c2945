import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES } from "./http2-frames.js";

/** What the reader hands on: one whole frame, its payload `bytes[start, end)` (valid during the call). */
export type FrameListener = (
  type: number,
  flags: number,
  streamId: number,
  bytes: Uint8Array,
  start: number,
  end: number,
) => void;

/** A frame over the size we allow (FRAME_SIZE_ERROR of the connection). */
export class FrameSizeError extends Error {}

/**
 * Cuts a connection's bytes into frames. Whole frames inside a read are handed on in place; only
 * a frame split across reads is copied (into `pending`), so the common small answer costs no
 * allocation here.
 */
export class FrameReader {
  private pending: Buffer | null = null;

  constructor(private readonly onFrame: FrameListener) {}

  push(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.pending !== null) {
      bytes = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let at = 0;
    const end = bytes.length;
    while (end - at >= FRAME_HEADER_BYTES) {
      const length = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
      if (length > MAX_FRAME_BYTES) throw new FrameSizeError(`a frame of ${length} bytes`);
      if (end - at < FRAME_HEADER_BYTES + length) break;
      const streamId =
        ((bytes[at + 5] & 0x7f) << 24) + (bytes[at + 6] << 16) + (bytes[at + 7] << 8) + bytes[at + 8];
      const start = at + FRAME_HEADER_BYTES;
      this.onFrame(bytes[at + 3], bytes[at + 4], streamId, bytes, start, start + length);
      at = start + length;
    }
    // The rest waits for the next read: copied, since a read's buffer may be reused.
    if (at < end) this.pending = Buffer.from(bytes.subarray(at, end));
  }
}
