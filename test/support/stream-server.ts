import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A server of streamed responses on loopback that counts the streams and events it sent. */
export interface StreamTestServer {
  url: string;
  counts: { streams: number; events: number };
  /** Responses still open. */
  readonly open: number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * `/sse?first=MS&gap=MS&events=N[&hold=1]`: Server-Sent Events, the first after `first` ms, then
 * one every `gap` ms, then `data: [DONE]`; the response ends there unless `hold` (then only the
 * client's `until` ends it). Each event is preceded by a comment line (a keep-alive, not an event).
 * `/lines?first=MS&gap=MS&events=N`: the same as NDJSON lines, then the end.
 */
export async function startStreamServer(): Promise<StreamTestServer> {
  const counts = { streams: 0, events: 0 };
  const open = new Set<import("node:http").ServerResponse>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const first = Number(url.searchParams.get("first") ?? 0);
    const gap = Number(url.searchParams.get("gap") ?? 0);
    const events = Number(url.searchParams.get("events") ?? 1);
    const sse = url.pathname === "/sse";
    if (!sse && url.pathname !== "/lines") return void res.writeHead(404).end();
    req.resume();
    counts.streams++;
    open.add(res);
    res.on("close", () => open.delete(res));
    res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/x-ndjson" });
    res.flushHeaders();
    let sent = 0;
    const tick = () => {
      if (res.destroyed) return;
      if (sent === events) {
        if (sse) res.write("data: [DONE]\n\n");
        if (!url.searchParams.has("hold")) res.end();
        return;
      }
      sent++;
      counts.events++;
      const token = JSON.stringify({ choices: [{ delta: { content: `t${sent}` } }] });
      res.write(sse ? `: keep-alive\n\ndata: ${token}\n\n` : `${token}\n`);
      setTimeout(tick, gap);
    };
    setTimeout(tick, first);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    get open() {
      return open.size;
    },
    reset() {
      counts.streams = 0;
      counts.events = 0;
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
