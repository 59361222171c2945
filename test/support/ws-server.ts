import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

/** A WebSocket server on loopback that counts what it receives and sends, for tests. */
export interface WsTestServer {
  /** http://127.0.0.1:PORT: a scenario's target (sockets go to ws://). */
  url: string;
  counts: {
    handshakes: number;
    refused: number;
    received: number;
    sent: number;
    bytesIn: number;
    bytesOut: number;
  };
  /** Sockets open now. */
  readonly open: number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Paths: `/echo?delay=MS` answers every message with "echo: MESSAGE" after MS (default 0);
 * `/silent` takes messages and never answers; `/hangup` closes the socket at the first message;
 * `/refuse` refuses the handshake with 403.
 */
export async function startWsServer(): Promise<WsTestServer> {
  const counts = { handshakes: 0, refused: 0, received: 0, sent: 0, bytesIn: 0, bytesOut: 0 };
  const sockets = new Set<import("ws").WebSocket>();
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  http.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/refuse") {
      counts.refused++;
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      counts.handshakes++;
      sockets.add(ws);
      ws.on("close", () => sockets.delete(ws));
      const delay = Number(url.searchParams.get("delay") ?? 0);
      ws.on("message", (data: Buffer) => {
        counts.received++;
        counts.bytesIn += data.length;
        if (url.pathname === "/hangup") ws.close(1011, "going away");
        if (url.pathname !== "/echo") return;
        const reply = `echo: ${data.toString("utf8")}`;
        setTimeout(() => {
          if (ws.readyState !== ws.OPEN) return;
          counts.sent++;
          counts.bytesOut += Buffer.byteLength(reply);
          ws.send(reply);
        }, delay);
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    get open() {
      return sockets.size;
    },
    reset() {
      for (const key of Object.keys(counts) as Array<keyof typeof counts>) counts[key] = 0;
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
