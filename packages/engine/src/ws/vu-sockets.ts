import { WS_METHOD } from "@volley/protocol";
import type { WsConnectOptions, WsNextOptions, WsSocket } from "@volley/script";
import { basicAuthorization } from "../http/basic-auth.js";
import type { ScriptHttpSettings } from "../script/script-http.js";
import { RecordedSocket } from "./recorded-socket.js";

/** `ws://host/path` for a path on the target (ws or wss as the target is http or https), or the URL as given. */
export function socketUrl(settings: ScriptHttpSettings, url: string): { url: string; path: string } {
  if (url.startsWith("/")) {
    const target = new URL(settings.target.origin);
    const scheme = target.protocol === "https:" ? "wss:" : "ws:";
    const path = settings.target.prefix + url;
    return { url: `${scheme}//${target.host}${path}`, path };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`vu.ws.connect: "${url}" is neither a path ("/...") nor a ws:// or wss:// URL`);
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new TypeError(`vu.ws.connect: "${url}" must use ws:// or wss:// (or be a path on the target)`);
  }
  return { url, path: parsed.pathname + parsed.search };
}

/**
 * One scripted VU's WebSockets. Every socket an iteration opened is closed when the iteration
 * ends (politely) or is aborted (at once): none outlives the iteration that made it.
 */
export class VuSockets {
  private readonly open = new Set<RecordedSocket>();

  constructor(private readonly http: ScriptHttpSettings) {}

  async connect(url: string, options: WsConnectOptions = {}): Promise<WsSocket> {
    const { http } = this;
    const at = socketUrl(http, String(url));
    const name = options.name ?? `${WS_METHOD} ${at.path.split("?")[0]}`;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const credentials = url.startsWith("/") ? http.target.authorization : basicAuthorization(new URL(at.url));
    if (credentials !== null && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
      headers.authorization = credentials;
    }
    // A failure rejects with a RequestFailedError, counted already (see recorded-socket.ts).
    const socket = await RecordedSocket.open({
      url: at.url,
      headers,
      timeoutMs: options.timeout ?? http.timeoutMs,
      network: http.network,
      recorder: http.recorders.request(String(name), WS_METHOD),
    });
    this.open.add(socket);
    const sockets = this;
    return {
      send(data) {
        socket.send(data);
      },
      async next(next: WsNextOptions = {}) {
        const recorder =
          next.name === undefined ? null : http.recorders.request(String(next.name), WS_METHOD);
        const data = await socket.next(next.match, next.timeout ?? http.timeoutMs, recorder);
        return typeof data === "string" ? data : new Uint8Array(data);
      },
      async close() {
        sockets.open.delete(socket);
        await socket.close();
      },
    };
  }

  /** The iteration ended: its sockets are closed, politely unless `now` (an abort). */
  closeAll(now: boolean): void {
    // Most iterations open none: an empty Set is not cleared (V8 would make it a new table).
    if (this.open.size === 0) return;
    for (const socket of this.open) {
      if (now) socket.terminate();
      else void socket.close();
    }
    this.open.clear();
  }
}
