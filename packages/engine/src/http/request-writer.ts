import type { Socket } from "node:net";
import type { Dispatcher } from "undici";
import { InvalidRequestError, requestHead, type TracedDispatchOptions } from "./request-head.js";
import type { BatchedWriter, WriteBatch } from "./write-batch.js";

/** The last request without a body a connection wrote, for the next one that repeats it. */
interface LastHead {
  method: string;
  path: string;
  headers: Dispatcher.DispatchOptions["headers"];
  bytes: Buffer | null;
  /** The same head without its blank line, for a traced request to add its `traceparent` to. */
  open: string | null;
}

/**
 * Puts a connection's requests on its socket, each in one `write` (head and a string body
 * together; head and a Buffer body corked), at once or through the thread's write batch. Heads
 * are latin1 (request-head.ts allows no byte above 0xff): a character is a byte.
 */
export class RequestWriter {
  private lastHead: LastHead | null = null;
  /** The request waiting in the batch to be written (and its body, written beside it), or null. */
  private unwritten: string | Uint8Array | null = null;
  private unwrittenBody: Uint8Array | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly hostHeader: string,
    /** The thread's write batch, or null: each request written at once. */
    private readonly batch: WriteBatch | null,
    /** Who the batch calls back (the connection), to check that the request still stands. */
    private readonly batched: BatchedWriter,
  ) {}

  /** Its request waits for the batch. */
  get waiting(): boolean {
    return this.unwritten !== null;
  }

  /** Writes the request, or queues it for the batch; the bytes it is. Throws InvalidRequestError. */
  write(options: TracedDispatchOptions): number {
    const body = options.body;
    if (body === null || body === undefined) return this.writeHead(options);
    if (typeof body === "string") {
      const length = Buffer.byteLength(body);
      const head = requestHead(options, this.hostHeader, length);
      // One write: an ASCII body joins the head; any other is written beside it, corked.
      if (length === body.length) this.put(head + body, null);
      else this.put(head, Buffer.from(body));
      return head.length + length;
    }
    if (Buffer.isBuffer(body) || body instanceof Uint8Array) {
      const head = requestHead(options, this.hostHeader, body.length);
      this.put(head, body);
      return head.length + body.length;
    }
    throw new InvalidRequestError("a request body must be a string or bytes");
  }

  /** Writes what waits for the batch. */
  flush(): void {
    const data = this.unwritten;
    if (data === null) return;
    const body = this.unwrittenBody;
    this.unwritten = null;
    this.unwrittenBody = null;
    this.writeNow(data, body);
  }

  /** Forgets what waits for the batch (its request ended first); whether anything did. */
  drop(): boolean {
    const dropped = this.unwritten !== null;
    this.unwritten = null;
    this.unwrittenBody = null;
    return dropped;
  }

  /**
   * The bytes of a request without a body. A VU often sends the same request again and again:
   * when method, path and (frozen) headers are those of the last one, the bytes made for it are
   * written again. They are made on the first repeat, so a templated path never pays for them.
   */
  private writeHead(options: TracedDispatchOptions): number {
    const last = this.lastHead;
    if (
      last !== null &&
      last.headers === options.headers &&
      last.path === options.path &&
      last.method === options.method
    ) {
      const traceparent = options.traceparent;
      if (traceparent !== undefined) {
        last.open ??= requestHead({ ...options, traceparent: undefined }, this.hostHeader, 0).slice(0, -2);
        const head = `${last.open}traceparent: ${traceparent}\r\n\r\n`;
        this.put(head, null);
        return head.length;
      }
      last.bytes ??= Buffer.from(requestHead(options, this.hostHeader, 0), "latin1");
      this.put(last.bytes, null);
      return last.bytes.length;
    }
    const head = requestHead(options, this.hostHeader, 0);
    this.put(head, null);
    const headers = options.headers;
    this.lastHead =
      headers !== null && headers !== undefined && Object.isFrozen(headers)
        ? { method: options.method, path: options.path, headers, bytes: null, open: null }
        : null;
    return head.length;
  }

  /** Now, or once the loop has read every ready socket (the batch then calls the connection). */
  private put(data: string | Uint8Array, body: Uint8Array | null): void {
    if (this.batch?.active) {
      this.unwritten = data;
      this.unwrittenBody = body;
      this.batch.add(this.batched);
    } else {
      this.writeNow(data, body);
    }
  }

  private writeNow(data: string | Uint8Array, body: Uint8Array | null): void {
    if (body === null) {
      this.socket.write(data, "latin1");
      return;
    }
    this.socket.cork();
    this.socket.write(data, "latin1");
    this.socket.write(body);
    this.socket.uncork();
  }
}
