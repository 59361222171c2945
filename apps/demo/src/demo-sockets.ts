import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { ShopState } from "./shop-state.js";

/**
 * The demo's WebSockets: `/chat` echoes every message back; `/feed` (signed in: a bearer token
 * or the session cookie) answers `{"subscribe": "prices"}` with a price update at once and then
 * every 250 ms. Anything else is refused with 404.
 */
export class DemoSockets {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 1024 * 1024,
  });

  constructor(private readonly state: ShopState) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://demo").pathname;
    if (path === "/feed") {
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
      if (this.state.session(bearer) === undefined) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      }
    } else if (path !== "/chat") {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (path === "/chat") {
        ws.on("message", (data, binary) => ws.send(data, { binary }));
        return;
      }
      let timer: NodeJS.Timeout | null = null;
      let price = 100;
      const update = () => {
        price = Math.round((price + (Math.random() - 0.5) * 2) * 100) / 100;
        ws.send(JSON.stringify({ prices: { A1: price }, at: Date.now() }));
      };
      ws.on("message", (data) => {
        if (timer === null && String(data).includes('"subscribe"')) {
          update();
          timer = setInterval(update, 250);
        }
      });
      ws.on("close", () => {
        if (timer) clearInterval(timer);
      });
    });
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
