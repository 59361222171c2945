// Shared by the HTTP/2 client's tests (http2-pool.test.ts, http2-framing.test.ts): node's own
// HTTP/2 server as the peer, a request that records what its handler heard, pools closed after
// each test.
import {
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import type { Dispatcher } from "undici";
import { Http2Pool } from "../http/http2-pool.js";

/** What one request heard from the pool. */
export interface Heard {
  status: number;
  headers: string[];
  body: Buffer;
  error: Error | null;
  phases: number[] | null;
}

/** Dispatches one request and resolves with what its handler heard (the handler a VU is). */
export function request(
  pool: Http2Pool,
  options: Partial<Dispatcher.DispatchOptions> & { traceparent?: string } = {},
) {
  return new Promise<Heard>((resolve) => {
    const heard: Heard = { status: 0, headers: [], body: Buffer.alloc(0), error: null, phases: null };
    const chunks: Buffer[] = [];
    pool.dispatch(
      { method: "GET", path: "/", ...options } as Dispatcher.DispatchOptions,
      {
        onPhases: (...phases: number[]) => {
          heard.phases = phases;
        },
        onHeaders: (status: number, raw: unknown) => {
          heard.status = status;
          heard.headers = raw as string[];
          return true;
        },
        onData: (chunk: Buffer) => {
          chunks.push(Buffer.from(chunk));
          return true;
        },
        onComplete: () => {
          heard.body = Buffer.concat(chunks);
          resolve(heard);
        },
        onError: (error: Error) => {
          heard.error = error;
          resolve(heard);
        },
      } as Dispatcher.DispatchHandler,
    );
  });
}

/** What a test opened (servers, pools): closed after each test by `closeOpened`. */
export const open: Array<{ close(): unknown }> = [];

export async function closeOpened(): Promise<void> {
  for (const item of open.splice(0)) await item.close();
}

/** An h2c server answering with `answer`; counts sessions, streams and the most streams at once. */
export async function h2cServer(
  answer: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void,
  settings = {},
) {
  const seen = { sessions: 0, streams: 0, atOnce: 0, mostAtOnce: 0, closedSessions: 0 };
  const sessions = new Set<ServerHttp2Session>();
  const server: Http2Server = createServer({ settings });
  server.on("session", (session) => {
    seen.sessions++;
    sessions.add(session);
    session.on("close", () => {
      seen.closedSessions++;
      sessions.delete(session);
    });
  });
  server.on("stream", (stream, headers) => {
    stream.on("error", () => {}); // a stream the test resets
    seen.streams++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, ++seen.atOnce);
    stream.on("close", () => seen.atOnce--);
    answer(stream, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open.push({
    close: () =>
      new Promise((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(resolve);
      }),
  });
  return { url, seen };
}

export function pool(url: string, options: Partial<ConstructorParameters<typeof Http2Pool>[1]> = {}) {
  const made = new Http2Pool(url, {
    connections: 1,
    keepAliveTimeoutMs: 4000,
    connectTimeoutMs: 2000,
    ...options,
  });
  open.push({ close: () => made.destroy() });
  return made;
}

export const hello = (stream: ServerHttp2Stream) => {
  stream.respond({ ":status": 200, "x-token": "t1" });
  stream.end("hello");
};
