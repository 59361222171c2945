import { createRequire } from "node:module";
import type { Socket } from "node:net";
import { getSystemErrorName } from "node:util";

/** A plain-TCP connection whose reads the thread's NativeReads makes. */
export interface NativeReader {
  /** Bytes `start`..`end` of `bytes` were read (valid until this batch of reads is handled). */
  onNativeRead(bytes: Buffer, start: number, end: number): void;
  /** The peer closed (`error` null) or the read failed. */
  onNativeReadEnd(error: Error | null): void;
}

interface SocketReadsAddon {
  createPoller(buffer: Buffer, meta: Int32Array, fds: Int32Array, onReads: (count: number) => void): object;
  add(poller: object, fd: number, id: number): number;
  remove(poller: object, fd: number): number;
}

/** Sockets one thread reads this way at most; past it, a connection reads through node:net. */
const MAX_SOCKETS = 65_536;
/** Where a batch's reads land (each read takes at most 64 KiB of it). */
const BATCH_BYTES = 1 << 20;
const MAX_READS = 256;

/**
 * A thread's plain-TCP HTTP/1.1 reads made a batch at a time by a small addon
 * (packages/engine/native/socket-reads.c): sockets stay node:net's for connecting, writing and
 * closing, but are paused there, and their reads come from one epoll set that libuv watches as a
 * single descriptor. Every ready socket is read once into one buffer and JavaScript is called once
 * per batch, not once per read: what stood between the engine and wrk (bench/README.md, the
 * thirty-seventh session). Where the addon is not built (or VOLLEY_NATIVE_READS=0), `forThread`
 * is null and connections read through node:net as before.
 */
export class NativeReads {
  private static instance: NativeReads | null | undefined;
  private readonly buffer = Buffer.allocUnsafe(BATCH_BYTES);
  private readonly meta = new Int32Array(MAX_READS * 3);
  private readonly fds = new Int32Array(MAX_SOCKETS).fill(-1);
  private readonly readers: (NativeReader | null)[] = [];
  private readonly free: number[] = [];
  private readonly poller: object;

  private constructor(private readonly addon: SocketReadsAddon) {
    this.poller = addon.createPoller(this.buffer, this.meta, this.fds, (count) => this.dispatch(count));
  }

  /** Sockets whose reads it makes now. */
  get taken(): number {
    return this.readers.length - this.free.length;
  }

  /** Off: new connections read through node:net (the tests run both ways). */
  static enabled = true;

  /** This thread's, or null where reads go through node:net. */
  static forThread(): NativeReads | null {
    if (!NativeReads.enabled) return null;
    if (NativeReads.instance === undefined) NativeReads.instance = NativeReads.load();
    return NativeReads.instance;
  }

  private static load(): NativeReads | null {
    if (process.platform !== "linux" || process.env.VOLLEY_NATIVE_READS === "0") return null;
    try {
      const require = createRequire(import.meta.url);
      return new NativeReads(require("../../native/build/Release/socket_reads.node") as SocketReadsAddon);
    } catch {
      return null; // not built here: node:net reads
    }
  }

  /**
   * Takes over a connected socket's reads; the id to release it with, or -1 when it cannot (the
   * socket then keeps reading through node:net).
   */
  take(socket: Socket, reader: NativeReader): number {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (typeof fd !== "number" || fd < 0) return -1;
    const id = this.free.pop() ?? this.readers.length;
    if (id >= MAX_SOCKETS) return -1;
    socket.pause(); // node:net reads it no more
    this.fds[id] = fd;
    this.readers[id] = reader;
    if (this.addon.add(this.poller, fd, id) < 0) {
      this.forget(id);
      socket.resume();
      return -1;
    }
    return id;
  }

  /** Before the socket is closed by its connection: its descriptor leaves the epoll set. */
  release(id: number): void {
    if (this.readers[id] === null || this.readers[id] === undefined) return;
    this.addon.remove(this.poller, this.fds[id]);
    this.forget(id);
  }

  /**
   * The socket closed some other way (node:net destroyed it after a failed write): the kernel has
   * taken its descriptor out of the set with it, so only the id is forgotten.
   */
  forgetClosed(id: number): void {
    if (this.readers[id] !== null && this.readers[id] !== undefined) this.forget(id);
  }

  private forget(id: number): void {
    this.fds[id] = -1;
    this.readers[id] = null;
    this.free.push(id);
  }

  private dispatch(count: number): void {
    const { meta, buffer, readers } = this;
    for (let i = 0; i < count; i++) {
      const reader = readers[meta[i * 3]];
      // Closed by an earlier read of this batch: what it read is nobody's.
      if (reader === null || reader === undefined) continue;
      const at = meta[i * 3 + 1];
      const bytes = meta[i * 3 + 2];
      if (bytes > 0) reader.onNativeRead(buffer, at, at + bytes);
      else reader.onNativeReadEnd(bytes === 0 ? null : readError(bytes));
    }
  }
}

/** A failed read as node:net reports one (`read ECONNRESET`, with its code and errno). */
function readError(errno: number): Error {
  const code = getSystemErrorName(errno);
  return Object.assign(new Error(`read ${code}`), { errno, code, syscall: "read" });
}
