/** HTTP/2's frame types, flags, settings and error codes (RFC 9113 §6, §7) that the client uses. */
export const FRAME = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PUSH_PROMISE: 5,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  CONTINUATION: 9,
} as const;

export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

export const SETTING = {
  HEADER_TABLE_SIZE: 1,
  ENABLE_PUSH: 2,
  MAX_CONCURRENT_STREAMS: 3,
  INITIAL_WINDOW_SIZE: 4,
  MAX_FRAME_SIZE: 5,
} as const;

export const ERROR_CODE = {
  NO_ERROR: 0,
  PROTOCOL_ERROR: 1,
  FLOW_CONTROL_ERROR: 3,
  FRAME_SIZE_ERROR: 6,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  COMPRESSION_ERROR: 9,
} as const;

export const FRAME_HEADER_BYTES = 9;
/** The largest frame we accept (SETTINGS_MAX_FRAME_SIZE left at its default). */
export const MAX_FRAME_BYTES = 16_384;
/** The windows before any SETTINGS or WINDOW_UPDATE (RFC 9113 §6.9.2). */
export const DEFAULT_WINDOW = 65_535;
export const MAX_WINDOW = 2 ** 31 - 1;

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** A frame: its 9-byte header, then the payload. */
export function frame(type: number, flags: number, streamId: number, payload: Uint8Array | null): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  writeFrameHeader(out, 0, length, type, flags, streamId);
  if (payload !== null) out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

export function writeFrameHeader(
  out: Uint8Array,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  out[at] = length >>> 16;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out[at + 5] = (streamId >>> 24) & 0x7f;
  out[at + 6] = (streamId >>> 16) & 0xff;
  out[at + 7] = (streamId >>> 8) & 0xff;
  out[at + 8] = streamId & 0xff;
}

/** A 31-bit unsigned field (stream ids, window increments) at `at`. */
export function read31(bytes: Uint8Array, at: number): number {
  return ((bytes[at] & 0x7f) << 24) + (bytes[at + 1] << 16) + (bytes[at + 2] << 8) + bytes[at + 3];
}

export function windowUpdate(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(FRAME.WINDOW_UPDATE, 0, streamId, payload);
}

export function rstStream(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

/** What the client sends first: the preface, its SETTINGS and the session window's increase. */
export function clientPreface(streamWindow: number, sessionWindow: number): Buffer {
  const settings = Buffer.allocUnsafe(12);
  settings.writeUInt16BE(SETTING.ENABLE_PUSH, 0);
  settings.writeUInt32BE(0, 2);
  settings.writeUInt16BE(SETTING.INITIAL_WINDOW_SIZE, 6);
  settings.writeUInt32BE(streamWindow, 8);
  return Buffer.concat([
    PREFACE,
    frame(FRAME.SETTINGS, 0, 0, settings),
    windowUpdate(0, sessionWindow - DEFAULT_WINDOW),
  ]);
}
