import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { requestHead, type TracedDispatchOptions } from "./request-head.js";
import { RequestWriter } from "./request-writer.js";
import { WriteBatch } from "./write-batch.js";

const HOST = "target.test";
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A loopback socket and every byte its server received, once the client ends it. */
async function loopback(): Promise<{ socket: Socket; received: Promise<Buffer> }> {
  let resolveReceived: (bytes: Buffer) => void = () => {};
  const received = new Promise<Buffer>((resolve) => {
    resolveReceived = resolve;
  });
  const server = createServer((peer) => {
    const chunks: Buffer[] = [];
    peer.on("data", (chunk: Buffer) => chunks.push(chunk));
    peer.on("end", () => {
      resolveReceived(Buffer.concat(chunks));
      peer.end();
    });
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  await once(socket, "connect");
  return { socket, received };
}

/** What the request must be on the wire: its head made from scratch, and its body. */
function expected(options: TracedDispatchOptions): Buffer {
  const body = options.body as string | Buffer | undefined;
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  return Buffer.concat([Buffer.from(requestHead(options, HOST, bytes.length), "latin1"), bytes]);
}

describe("RequestWriter", () => {
  it("writes a repeated head's remembered bytes, and each request exactly as one made from scratch", async () => {
    const { socket, received } = await loopback();
    const writer = new RequestWriter(socket, HOST, null, { flushWrite: () => {} });
    const frozen = Object.freeze(["accept", "text/plain", "x-id", "7"]) as string[];
    const requests: TracedDispatchOptions[] = [
      { method: "GET", path: "/a", headers: frozen },
      { method: "GET", path: "/a", headers: frozen }, // the remembered bytes
      { method: "GET", path: "/a", headers: frozen }, // again
      // Traced: the remembered head gains its own traceparent each time.
      {
        method: "GET",
        path: "/a",
        headers: frozen,
        traceparent: `00-${"1".repeat(32)}-${"2".repeat(16)}-01`,
      },
      {
        method: "GET",
        path: "/a",
        headers: frozen,
        traceparent: `00-${"3".repeat(32)}-${"4".repeat(16)}-01`,
      },
      { method: "GET", path: "/a", headers: frozen },
      { method: "GET", path: "/b", headers: frozen }, // another path: made again
      { method: "HEAD", path: "/b", headers: frozen }, // another method
      { method: "GET", path: "/b", headers: ["x-id", "8"] }, // not frozen: never remembered
      { method: "GET", path: "/b", headers: ["x-id", "9"] },
      { method: "POST", path: "/b", headers: frozen, body: "plain" }, // ASCII body joins its head
      { method: "POST", path: "/b", headers: frozen, body: "é ü" }, // UTF-8 body beside it
      { method: "PUT", path: "/b", headers: frozen, body: Buffer.from([0, 255, 10, 13]) },
      { method: "GET", path: "/a", headers: frozen },
    ];
    const counts = requests.map((options) => writer.write(options));
    socket.end();
    const bytes = await received;
    const wanted = requests.map(expected);
    expect(bytes.equals(Buffer.concat(wanted))).toBe(true);
    // The count each write says is its request's size on the wire.
    expect(counts).toEqual(wanted.map((request) => request.length));
  });

  it("while the batch is on, a request waits for it: written by flush, or never when dropped", async () => {
    const { socket, received } = await loopback();
    const batch = new WriteBatch();
    batch.active = true;
    let flushes = 0;
    const writer: RequestWriter = new RequestWriter(socket, HOST, batch, {
      flushWrite: () => {
        flushes++;
        writer.flush();
      },
    });
    const dropped: TracedDispatchOptions = { method: "GET", path: "/dropped" };
    writer.write(dropped);
    expect(writer.waiting).toBe(true);
    expect(writer.drop()).toBe(true);
    expect(writer.drop()).toBe(false);
    const kept: TracedDispatchOptions = { method: "POST", path: "/kept", body: "é" };
    writer.write(kept);
    expect(writer.waiting).toBe(true);
    // The batch runs after this loop phase and calls back for both queued writes; only one waits.
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushes).toBe(2);
    expect(writer.waiting).toBe(false);
    socket.end();
    expect((await received).equals(expected(kept))).toBe(true);
  });
});
