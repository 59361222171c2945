import type { Vu } from "@volley/script";
import { vu } from "./vu.js";

type WsHandler = (...args: unknown[]) => unknown;

/**
 * k6/ws over vu.ws: `ws.connect(url, params, (socket) => {...})` opens the socket (the handshake is
 * a request of method WS), runs the callback, dispatches `open`, each `message` (and
 * `binaryMessage`), then `close`, and resolves when the socket closes (k6's call returns then too).
 * `ping()` sends nothing: Volley's sockets have no ping, so `pong` never fires.
 */
export const ws = {
  async connect(url: string, params?: { tags?: Record<string, string> } | WsHandler, callback?: WsHandler) {
    const run = (typeof params === "function" ? params : callback) as WsHandler | undefined;
    const options = typeof params === "object" ? params : undefined;
    const running = vu("ws.connect");
    const handlers: Record<string, WsHandler[]> = {};
    const emit = async (event: string, ...args: unknown[]) => {
      for (const handler of handlers[event] ?? []) await handler(...args);
    };
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let closing = false;
    let socket: Awaited<ReturnType<Vu["ws"]["connect"]>>;
    try {
      socket = await running.ws.connect(url, { name: options?.tags?.name });
    } catch (error) {
      const message = (error as Error).message;
      await emit("error", { error: () => message });
      return { status: 0, url, error: message };
    }
    const k6Socket = {
      on(event: string, handler: WsHandler) {
        handlers[event] = [...(handlers[event] ?? []), handler];
      },
      send(data: unknown) {
        if (!closing)
          socket.send(typeof data === "string" || data instanceof Uint8Array ? data : String(data));
      },
      ping() {},
      close() {
        closing = true;
      },
      setTimeout(fn: WsHandler, ms: number) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          void fn();
        }, ms);
        timers.add(timer);
      },
      setInterval(fn: WsHandler, ms: number) {
        timers.add(setInterval(() => void fn(), ms));
      },
    };
    await run?.(k6Socket);
    await emit("open");
    // Messages are read until the script closes the socket or the server does; a quiet spell
    // (next() timing out) is only waited through.
    while (!closing) {
      const arrival = await socket.next({ timeout: 100 }).then(
        (data) => ({ data }),
        (error: { kind?: string; message?: string }) => ({ error }),
      );
      if ("data" in arrival) {
        if (typeof arrival.data === "string") await emit("message", arrival.data);
        else await emit("binaryMessage", arrival.data.buffer);
      } else if (arrival.error.kind !== "timeout") {
        if (arrival.error.kind !== "closed")
          await emit("error", { error: () => arrival.error.message ?? "" });
        break;
      }
    }
    for (const timer of timers) clearTimeout(timer);
    await socket.close();
    await emit("close");
    return { status: 101, url };
  },
};
