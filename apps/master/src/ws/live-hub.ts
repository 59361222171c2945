import type { LiveMessage } from "@volley/protocol";
import type { WebSocket } from "ws";

/** Most bytes one dashboard may have waiting beyond its first message; past it the dashboard is closed (it reconnects and gets the whole state). */
const MAX_BUFFERED = 2 * 1024 * 1024;
/** Most bytes all dashboards together may have waiting; past it the most behind are closed first. */
const MAX_BUFFERED_TOTAL = 64 * 1024 * 1024;
/** Most dashboards at once; one more is refused (1013, try again later). */
export const MAX_LIVE_CLIENTS = 10_000;

/**
 * The dashboards on `/ws/live`: each message is serialized once and pushed to all of them. A
 * dashboard that does not read (paused, on a dead link) is closed rather than buffered for: 300
 * such once held 320 MB of the master's memory.
 */
export class LiveHub {
  /** Each dashboard, with the bytes it may have waiting: its first message (the whole state, large after a long run) plus MAX_BUFFERED. */
  private readonly clients = new Map<WebSocket, number>();

  constructor(private readonly maxClients = MAX_LIVE_CLIENTS) {}

  get size(): number {
    return this.clients.size;
  }

  add(socket: WebSocket, first: LiveMessage): void {
    if (this.clients.size >= this.maxClients) {
      socket.close(1013, "too many dashboards connected");
      return;
    }
    const text = JSON.stringify(first);
    this.clients.set(socket, Buffer.byteLength(text) + MAX_BUFFERED);
    socket.on("close", () => this.clients.delete(socket));
    socket.on("error", () => this.clients.delete(socket));
    // The dashboard only listens; anything it sends is ignored.
    socket.send(text);
  }

  publish(message: LiveMessage): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify(message);
    let total = 0;
    for (const [socket, allowed] of this.clients) {
      if (socket.readyState !== socket.OPEN) continue;
      if (socket.bufferedAmount > allowed) {
        this.drop(socket);
        continue;
      }
      socket.send(text);
      total += socket.bufferedAmount;
    }
    if (total > MAX_BUFFERED_TOTAL) this.dropMostBehind(total);
  }

  closeAll(): void {
    for (const socket of this.clients.keys()) socket.close(1001, "master shutting down");
    this.clients.clear();
  }

  private dropMostBehind(total: number): void {
    const behind = [...this.clients.keys()].sort((a, b) => b.bufferedAmount - a.bufferedAmount);
    for (const socket of behind) {
      if (total <= MAX_BUFFERED_TOTAL / 2 || socket.bufferedAmount === 0) return;
      total -= socket.bufferedAmount;
      this.drop(socket);
    }
  }

  private drop(socket: WebSocket): void {
    this.clients.delete(socket);
    socket.terminate();
  }
}
