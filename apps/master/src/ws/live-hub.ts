import type { LiveMessage } from "@volley/protocol";
import type { WebSocket } from "ws";

/** Most bytes a slow dashboard may have waiting before messages to it are skipped. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** The dashboards on `/ws/live`: each message is serialized once and pushed to all of them. */
export class LiveHub {
  private readonly clients = new Set<WebSocket>();

  get size(): number {
    return this.clients.size;
  }

  add(socket: WebSocket, first: LiveMessage): void {
    this.clients.add(socket);
    socket.on("close", () => this.clients.delete(socket));
    socket.on("error", () => this.clients.delete(socket));
    // The dashboard only listens; anything it sends is ignored.
    socket.send(JSON.stringify(first));
  }

  publish(message: LiveMessage): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify(message);
    for (const socket of this.clients) {
      if (socket.readyState === socket.OPEN && socket.bufferedAmount < MAX_BUFFERED) {
        socket.send(text);
      }
    }
  }

  closeAll(): void {
    for (const socket of this.clients) socket.close(1001, "master shutting down");
    this.clients.clear();
  }
}
