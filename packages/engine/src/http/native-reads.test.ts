import { existsSync } from "node:fs";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runSlice } from "../test-support/run-slice.js";
import { NativeReads } from "./native-reads.js";

const ADDON = new URL("../../native/build/Release/socket_reads.node", import.meta.url).pathname;

/** A server that answers each request (a GET: its head alone) as `answer` says, and counts them. */
async function server(answer: (socket: Socket, index: number) => void) {
  const seen = { requests: 0, taken: [] as number[] };
  const created: Server = createServer((socket) => {
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end >= 0; end = buffered.indexOf("\r\n\r\n")) {
        buffered = buffered.slice(end + 4);
        // How many sockets the thread's native reads held as this request arrived.
        seen.taken.push(NativeReads.forThread()?.taken ?? -1);
        answer(socket, seen.requests++);
      }
    });
  });
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  servers.push(created);
  return { url: `http://127.0.0.1:${(created.address() as AddressInfo).port}`, seen };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

const scenario = (target: string, vus: number, iterations: number) => ({
  name: "native",
  target,
  load: { executor: "per-vu-iterations", vus, iterations },
  requests: [{ name: "get", path: "/n" }],
  http: { client: "volley" },
});

describe("a thread's plain-TCP reads, a batch at a time (native/socket-reads.c)", () => {
  it("is built by the build on Linux, reads every connection, and lets each go when it closes", async () => {
    if (process.platform !== "linux") return;
    expect(existsSync(ADDON), `${ADDON}: pnpm build makes it (node-gyp, g++)`).toBe(true);
    expect(NativeReads.forThread()).not.toBeNull();
    const { url, seen } = await server((socket) =>
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
    );
    const { aggregate } = await runSlice(scenario(url, 4, 50));
    expect(aggregate.get("get")).toMatchObject({ requests: 200, failures: 0, bytesIn: 200 * 43 });
    expect(seen.requests).toBe(200);
    // Past the first request of each VU every socket was read natively; none is left at the end.
    expect(Math.max(...seen.taken)).toBe(4);
    expect(NativeReads.forThread()?.taken).toBe(0);
  });

  it("a reset in the middle of an answer is one failed request of kind reset; a close between answers none", async () => {
    const { url, seen } = await server((socket, index) => {
      if (index === 1) {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart");
        setTimeout(() => socket.resetAndDestroy(), 20);
      } else if (index === 3) {
        // Answered, then closed as if idle: the next request goes out on a new socket, unfailed.
        socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      } else {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      }
    });
    const { aggregate } = await runSlice(scenario(url, 1, 6));
    const stats = aggregate.get("get");
    expect(stats).toMatchObject({ requests: 6, failures: 1 });
    expect(stats?.errors.list()).toEqual([expect.objectContaining({ kind: "reset", count: 1 })]);
    // The request after the close may reach the closing socket before its end is read: sent
    // again on a new one (an idempotent GET nothing answered), still one request of the run's.
    expect(seen.requests).toBeGreaterThanOrEqual(6);
    expect(seen.requests).toBeLessThanOrEqual(7);
    expect(NativeReads.forThread()?.taken ?? 0).toBe(0);
  });
});
