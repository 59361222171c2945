import { ProtocolError } from "./client-handler.js";
import { ERROR_CODE, FLAG, FRAME, frame, MAX_WINDOW, read31, SETTING } from "./http2-frames.js";
import { HeaderBlockError, HeaderBlocks } from "./http2-header-blocks.js";
import type { Http2Request } from "./http2-request.js";

const PING_ACK_FLAGS = FLAG.ACK;

/** What the frames of a connection change of it (the session, http2-session.ts). */
export interface FramedConnection {
  /** Send windows: the connection's, and each new stream's (the server's INITIAL_WINDOW_SIZE). */
  sendWindow: number;
  streamWindow: number;
  maxFrame: number;
  maxStreams: number;
  draining: boolean;
  queue(bytes: Buffer): void;
  giveBack(streamId: number, increment: number): void;
  settingsApplied(): void;
  goneAway(): void;
  connectionError(code: number, message: string): void;
}

/**
 * What a session reads: the server's frames, each applied to its stream or to the connection
 * (RFC 9113 §5, §6). Every header block goes through the one HPACK decoder, in order, whether
 * anyone still waits for its stream or not. Flow control: body bytes received are given back
 * to the server in WINDOW_UPDATEs once half a window is used; a request's body is sent as far
 * as both send windows allow, the rest when the server opens them.
 */
export class Http2Streams {
  private readonly open = new Map<number, Http2Request>();
  /** Requests whose body waits for a send window. */
  private readonly blocked = new Set<Http2Request>();
  private readonly blocks = new HeaderBlocks();
  private sessionUnacked = 0;

  constructor(
    private readonly session: FramedConnection,
    private readonly streamWindow: number,
    private readonly sessionWindow: number,
  ) {}

  /** `request` has stream `id` now. */
  openStream(id: number, request: Http2Request): void {
    this.open.set(id, request);
  }

  /** Forgets stream `id`; whether it was open. */
  close(id: number): boolean {
    const request = this.open.get(id);
    if (request === undefined) return false;
    this.open.delete(id);
    this.blocked.delete(request);
    return true;
  }

  /** Sends as much of the request's body as the windows allow; END_STREAM with its last byte. */
  sendBody(request: Http2Request): void {
    const body = request.body;
    if (body === null) return;
    const session = this.session;
    while (request.bodyAt < body.length) {
      const room = Math.min(
        session.sendWindow,
        request.sendWindow,
        session.maxFrame,
        body.length - request.bodyAt,
      );
      if (room <= 0) {
        this.blocked.add(request);
        return;
      }
      const last = request.bodyAt + room >= body.length;
      session.queue(
        frame(
          FRAME.DATA,
          last ? FLAG.END_STREAM : 0,
          request.streamId,
          body.subarray(request.bodyAt, request.bodyAt + room),
        ),
      );
      request.bodyAt += room;
      session.sendWindow -= room;
      request.sendWindow -= room;
    }
    request.body = null;
    this.blocked.delete(request);
  }

  readonly onFrame = (
    type: number,
    flags: number,
    id: number,
    bytes: Uint8Array,
    start: number,
    end: number,
  ): void => {
    if (this.blocks.stream !== 0 && (type !== FRAME.CONTINUATION || id !== this.blocks.stream)) {
      this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "a header block interrupted");
      return;
    }
    switch (type) {
      case FRAME.DATA:
        this.data(flags, id, bytes, start, end);
        return;
      case FRAME.HEADERS:
      case FRAME.CONTINUATION:
        try {
          if (type === FRAME.HEADERS) this.blocks.begin(id, flags, bytes, start, end);
          else if (this.blocks.stream === 0) throw new HeaderBlockError("a stray CONTINUATION");
          else this.blocks.add(bytes, start, end);
          if (flags & FLAG.END_HEADERS) this.headerBlock();
        } catch (error) {
          if (!(error instanceof HeaderBlockError)) throw error;
          const code = error.compression ? ERROR_CODE.COMPRESSION_ERROR : ERROR_CODE.PROTOCOL_ERROR;
          this.session.connectionError(code, error.message);
        }
        return;
      case FRAME.RST_STREAM: {
        if (end - start !== 4) {
          this.session.connectionError(ERROR_CODE.FRAME_SIZE_ERROR, "RST_STREAM size");
          return;
        }
        const request = this.open.get(id);
        if (request === undefined) return;
        this.close(id);
        request.reset(
          bytes[start] * 2 ** 24 + (bytes[start + 1] << 16) + (bytes[start + 2] << 8) + bytes[start + 3],
          false,
        );
        return;
      }
      case FRAME.SETTINGS:
        this.settings(flags, id, bytes, start, end);
        return;
      case FRAME.PING:
        if (end - start !== 8 || id !== 0) {
          this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "bad PING");
          return;
        }
        if (!(flags & FLAG.ACK))
          this.session.queue(frame(FRAME.PING, PING_ACK_FLAGS, 0, Buffer.from(bytes.subarray(start, end))));
        return;
      case FRAME.GOAWAY: {
        if (end - start < 8) {
          this.session.connectionError(ERROR_CODE.FRAME_SIZE_ERROR, "GOAWAY size");
          return;
        }
        const last = read31(bytes, start);
        this.session.draining = true;
        // Streams past the last one the server processed did nothing: they go again elsewhere.
        for (const [streamId, request] of [...this.open]) {
          if (streamId > last) {
            this.close(streamId);
            request.reset(ERROR_CODE.REFUSED_STREAM, true);
          }
        }
        this.session.goneAway();
        return;
      }
      case FRAME.WINDOW_UPDATE:
        this.windowUpdate(id, bytes, start, end);
        return;
      case FRAME.PUSH_PROMISE:
        this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "PUSH_PROMISE with push disabled");
        return;
      default:
        return; // PRIORITY and unknown types are ignored (§5.5)
    }
  };

  private data(flags: number, id: number, bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    // The whole payload, padding included, counts against the windows.
    this.sessionUnacked += length;
    if (this.sessionUnacked >= this.sessionWindow / 2) {
      this.session.giveBack(0, this.sessionUnacked);
      this.sessionUnacked = 0;
    }
    const request = this.open.get(id);
    if (request === undefined) return; // reset by us: its bytes still counted above
    let from = start;
    let to = end;
    if (flags & FLAG.PADDED) {
      to -= bytes[from++];
      if (to < from) {
        this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "bad DATA padding");
        return;
      }
    }
    const endStream = (flags & FLAG.END_STREAM) !== 0;
    if (!request.answered) {
      this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "DATA before HEADERS");
      return;
    }
    if (to > from) request.data(Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from));
    if (endStream) {
      this.close(id);
      request.end();
      return;
    }
    request.unacked += length;
    if (request.unacked >= this.streamWindow / 2 && this.open.has(id)) {
      this.session.giveBack(id, request.unacked);
      request.unacked = 0;
    }
  }

  /** A whole header block: a stream's response head, an informational head, or its trailers. */
  private headerBlock(): void {
    const blocks = this.blocks;
    const id = blocks.stream;
    const request = this.open.get(id);
    const trailers = request?.answered === true;
    blocks.decode(request === undefined || trailers ? false : request.wantsHeaders);
    if (request === undefined) return;
    if (!trailers) {
      if (!/^[1-5]\d\d$/.test(blocks.status)) {
        this.close(id);
        request.fail(
          new ProtocolError(`HTTP/2: a response without a valid :status (${JSON.stringify(blocks.status)})`),
        );
        return;
      }
      const status = Number(blocks.status);
      if (status < 200) return; // informational (1xx): the final answer follows
      request.response(status, blocks.raw ?? []);
    }
    if (blocks.endStream && this.open.get(id) === request) {
      this.close(id);
      request.end();
    }
  }

  private settings(flags: number, id: number, bytes: Uint8Array, start: number, end: number): void {
    if (id !== 0 || (end - start) % 6 !== 0) {
      this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "bad SETTINGS");
      return;
    }
    if (flags & FLAG.ACK) return;
    const session = this.session;
    for (let at = start; at < end; at += 6) {
      const key = (bytes[at] << 8) | bytes[at + 1];
      const value = bytes[at + 2] * 2 ** 24 + (bytes[at + 3] << 16) + (bytes[at + 4] << 8) + bytes[at + 5];
      if (key === SETTING.MAX_CONCURRENT_STREAMS) session.maxStreams = value;
      else if (key === SETTING.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) {
          session.connectionError(ERROR_CODE.FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE too large");
          return;
        }
        const delta = value - session.streamWindow;
        session.streamWindow = value;
        for (const request of this.open.values()) request.sendWindow += delta;
      } else if (key === SETTING.MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215) {
          session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "bad MAX_FRAME_SIZE");
          return;
        }
        session.maxFrame = value;
      }
    }
    session.queue(frame(FRAME.SETTINGS, FLAG.ACK, 0, null));
    for (const request of [...this.blocked]) this.sendBody(request);
    session.settingsApplied();
  }

  private windowUpdate(id: number, bytes: Uint8Array, start: number, end: number): void {
    if (end - start !== 4) {
      this.session.connectionError(ERROR_CODE.FRAME_SIZE_ERROR, "WINDOW_UPDATE size");
      return;
    }
    const increment = read31(bytes, start);
    if (increment === 0) {
      this.session.connectionError(ERROR_CODE.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0");
      return;
    }
    if (id === 0) {
      this.session.sendWindow += increment;
      if (this.session.sendWindow > MAX_WINDOW) {
        this.session.connectionError(ERROR_CODE.FLOW_CONTROL_ERROR, "window past 2^31-1");
        return;
      }
      for (const request of [...this.blocked]) this.sendBody(request);
      return;
    }
    const request = this.open.get(id);
    if (request === undefined) return;
    request.sendWindow += increment;
    if (this.blocked.has(request)) this.sendBody(request);
  }
}
