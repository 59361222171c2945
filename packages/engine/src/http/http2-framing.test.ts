import { constants, type IncomingHttpHeaders } from "node:http2";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeOpened, h2cServer, hello, open, pool, request } from "../test-support/http2-peer.js";
import { seededRandom } from "../test-support/seeded-random.js";
import { classifyError } from "./classify-error.js";
import { Http2Pool } from "./http2-pool.js";

afterEach(closeOpened);

describe("Volley's HTTP/2 client: frames, HPACK and flow control against node's HTTP/2 server", () => {
  it("sends the request's headers as HTTP/2 allows them, and its traceparent", async () => {
    let got: IncomingHttpHeaders = {};
    const { url } = await h2cServer((stream, headers) => {
      got = headers;
      hello(stream);
    });
    const client = pool(url);
    const traceparent = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
    const heard = await request(client, {
      method: "POST",
      path: "/p?q=1",
      body: "ab\u00e9",
      headers: Object.freeze([
        "Accept",
        "x/y",
        "Connection",
        "keep-alive",
        "Host",
        "example.test",
        "accept",
        "z/w",
      ]) as string[],
      traceparent,
    });
    expect(heard.status).toBe(200);
    expect(heard.headers).toEqual(expect.arrayContaining(["x-token", "t1"]));
    expect(got).toMatchObject({
      ":method": "POST",
      ":path": "/p?q=1",
      ":authority": "example.test",
      accept: "x/y, z/w",
      "content-length": "4",
      traceparent,
    });
    expect(got.connection).toBeUndefined();
  });

  it("refuses a header that would break the framing without ending the session", async () => {
    const { url, seen } = await h2cServer(hello);
    const client = pool(url);
    const bad = await request(client, { headers: ["x-bad", "a\r\nb"] });
    expect(bad.error?.message).toMatch(/invalid value of header x-bad/);
    const good = await Promise.all([request(client), request(client)]);
    expect(good.map((h) => h.status)).toEqual([200, 200]);
    expect(seen).toMatchObject({ sessions: 1, streams: 2 });
  });

  it("sends a refused idempotent request again, and fails a refused POST or any other reset", async () => {
    let refused = 0;
    const { url, seen } = await h2cServer((stream, headers) => {
      if (headers[":path"] === "/reset") stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else if (headers[":method"] === "POST" || headers[":path"] === "/refused") {
        stream.close(constants.NGHTTP2_REFUSED_STREAM);
      } else if (refused++ === 0) stream.close(constants.NGHTTP2_REFUSED_STREAM);
      else hello(stream);
    });
    const client = pool(url);
    const first = await request(client);
    expect(first.error).toBeNull();
    expect(first.status).toBe(200);
    expect(seen.streams).toBe(2);
    // Sent again once, not twice.
    const again = await request(client, { path: "/refused" });
    expect(again.error?.message).toBe("the server reset the stream (HTTP/2 error code 7)");
    expect(seen.streams).toBe(4);
    const post = await request(client, { method: "POST", body: "x" });
    expect(post.error?.message).toBe("the server reset the stream (HTTP/2 error code 7)");
    expect(seen.streams).toBe(5);
    const reset = await request(client, { path: "/reset" });
    expect(reset.error?.message).toMatch(/error code 2\)/);
    expect(classifyError(reset.error)).toBe("reset");
  });

  it("decodes every response head as node's own HPACK encoder wrote it, its dynamic table churning", async () => {
    let n = 0;
    const sent: string[][] = [];
    const { url } = await h2cServer((stream) => {
      const i = n++;
      // New values each time: nghttp2 indexes them, and the 4 KiB table evicts as it fills.
      const headers = {
        ":status": i % 7 === 0 ? 404 : 200,
        "x-seq": String(i),
        "x-blob": `${"abcdefghij~!".repeat(1 + (i % 9))}${i}`,
        "set-cookie": [`a=${i}`, `b=${i * 7}; Path=/`],
      };
      sent[i] = [
        "x-seq",
        headers["x-seq"],
        "x-blob",
        headers["x-blob"],
        "set-cookie",
        `a=${i}`,
        "set-cookie",
        `b=${i * 7}; Path=/`,
      ];
      stream.respond(headers);
      stream.end(String(i));
    });
    const client = pool(url);
    for (let i = 0; i < 300; i++) {
      const heard = await request(client);
      expect(heard.status).toBe(i % 7 === 0 ? 404 : 200);
      expect(heard.body.toString()).toBe(String(i));
      expect(heard.headers.filter((_, k) => k % 2 === 0 || heard.headers[k - 1] !== "date")).toEqual(
        expect.arrayContaining(sent[i]),
      );
    }
  });

  it("reads a head split over CONTINUATION frames, an informational head before it, and trailers after", async () => {
    const big = "x".repeat(40_000);
    const { url } = await h2cServer((stream) => {
      stream.additionalHeaders({ ":status": 103, link: "</a.css>; rel=preload" });
      stream.respond({ ":status": 200, "x-big": big }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "x-checksum": "abc" }));
      stream.end("done");
    });
    const client = pool(url);
    const heard = await request(client);
    expect(heard.status).toBe(200);
    expect(heard.headers).toEqual(expect.arrayContaining(["x-big", big]));
    expect(heard.headers).not.toContain("link");
    expect(heard.body.toString()).toBe("done");
    // The connection's HPACK state stayed in step: the next answer reads as well.
    expect((await request(client)).status).toBe(200);
  });

  it("sends a body larger than the server's window, as the server opens it", async () => {
    const sizes: number[] = [];
    const { url } = await h2cServer((stream) => {
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on("end", () => {
        sizes.push(size);
        hello(stream);
      });
    });
    const client = pool(url);
    const body = Buffer.alloc(300_000, 1);
    const heard = await Promise.all([
      request(client, { method: "POST", body }),
      request(client, { method: "PUT", body }),
    ]);
    expect(heard.map((h) => h.status)).toEqual([200, 200]);
    expect(sizes).toEqual([300_000, 300_000]);
  });

  it("sends the streams past a GOAWAY's last stream again on a new session", async () => {
    let first = true;
    const { url, seen } = await h2cServer((stream) => {
      if (first) {
        first = false;
        // Only stream 1 is taken: the client must send the others elsewhere.
        stream.session?.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
      }
      setTimeout(() => {
        if (!stream.destroyed) hello(stream);
      }, 10);
    });
    const client = pool(url);
    const heard = await Promise.all(Array.from({ length: 20 }, () => request(client)));
    expect(heard.map((h) => h.error?.message ?? h.status)).toEqual(Array(20).fill(200));
    expect(seen.sessions).toBeGreaterThanOrEqual(2);
  });

  it("fuzz: a server answering garbage after the preface fails the requests, never the process", async () => {
    let seed = 0;
    const server = createNetServer((socket) => {
      const next = seededRandom(++seed);
      socket.once("data", () => {
        // A valid SETTINGS first (the session opens), then random frames and bytes.
        socket.write(Buffer.from("000000040000000000", "hex"));
        const junk = Buffer.from(
          Array.from({ length: 10 + Math.floor(next() * 300) }, () => Math.floor(next() * 256)),
        );
        socket.end(junk);
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (let round = 0; round < 60; round++) {
      const client = new Http2Pool(url, { connections: 1, keepAliveTimeoutMs: 1000, connectTimeoutMs: 1000 });
      const heard = await Promise.all([
        request(client, { headersTimeout: 2000 }),
        request(client, { headersTimeout: 2000 }),
      ]);
      for (const h of heard) expect(h.error !== null || h.status >= 100).toBe(true);
      await client.destroy();
    }
  }, 60_000);

  it("reads a large body whole through the flow-control windows", async () => {
    const body = Buffer.alloc(3 << 20, 7);
    const { url } = await h2cServer((stream) => {
      stream.respond({ ":status": 200 });
      stream.end(body);
    });
    const heard = await request(pool(url));
    expect(heard.body.equals(body)).toBe(true);
  });
});
