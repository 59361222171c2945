import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_CLIENTS, runSlice, useHttpClient } from "../test-support/run-slice.js";

// A target whose bodies are too big to keep, or never end.
let server: Server;
let url: string;
// 64 MiB of zeros in ~64 KB: decoded whole, every iteration would hold 64 MiB.
const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
const timers = new Set<NodeJS.Timeout>();
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/big") {
      res.end(Buffer.alloc(3 * 1024 * 1024, "x"));
      return;
    }
    if (req.url === "/bomb") {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length });
      res.end(bomb);
      return;
    }
    if (req.url === "/endless") {
      res.writeHead(200, { "content-type": "text/plain" });
      // A chunk every 20 ms, forever: never idle long enough for an idle timeout.
      const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024, "y")), 20);
      timers.add(timer);
      res.on("close", () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    res.end("small body");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe.each(HTTP_CLIENTS)("response bodies are bounded (%s client)", (client) => {
  beforeAll(() => useHttpClient(client));

  it("a body past http.maxBodyBytes fails with kind expect, is drained, and the VU goes on", async () => {
    const before = process.memoryUsage().rss;
    const { aggregate } = await runSlice({
      name: "big",
      target: url,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
      http: { maxBodyBytes: 64 * 1024 },
      requests: [
        { name: "big", path: "/big", expect: { body: "x" } },
        { name: "small", path: "/small", expect: { body: "small" } },
      ],
    });
    const big = aggregate.get("big");
    expect(big?.requests).toBe(10);
    expect(big?.failures).toBe(10);
    expect(big?.errors.list()[0]).toMatchObject({ kind: "expect" });
    expect(big?.errors.list()[0].message).toContain("larger than http.maxBodyBytes (65536 bytes)");
    // Every byte is counted as received, though none past the cap was kept.
    expect(big?.bytesIn).toBeGreaterThan(10 * 3 * 1024 * 1024);
    expect(aggregate.get("small")).toMatchObject({ requests: 10, failures: 0 });
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("a compressed body decodes to at most http.maxBodyBytes; past it the request fails, kind expect", async () => {
    const { aggregate } = await runSlice({
      name: "bomb",
      target: url,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 4 },
      http: { maxBodyBytes: 1024 * 1024, compression: true },
      requests: [{ name: "bomb", path: "/bomb", expect: { body: "x" } }],
    });
    const stats = aggregate.get("bomb");
    expect(stats).toMatchObject({ requests: 8, failures: 8 });
    expect(stats?.errors.list()[0]).toMatchObject({
      kind: "expect",
      message: "response body is larger than http.maxBodyBytes (1048576 bytes) once decoded",
    });
    expect(stats?.bytesIn).toBeGreaterThanOrEqual(8 * bomb.length);
  });

  it("timeout is a deadline for the whole request, even while a body keeps trickling in", async () => {
    const started = Date.now();
    const { aggregate } = await runSlice({
      name: "endless",
      target: url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      timeout: "500ms",
      requests: [{ name: "endless", path: "/endless", expect: { body: "y" } }],
    });
    const endless = aggregate.get("endless");
    expect(endless).toMatchObject({ requests: 2, failures: 2 });
    expect(endless?.errors.list()[0].kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
