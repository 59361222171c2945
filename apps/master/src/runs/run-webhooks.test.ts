import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunDetail } from "@volley/protocol";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { RunWebhooks } from "./run-webhooks.js";

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("RunWebhooks", () => {
  it("drops an endless answer unread: the receiver writes little of its 2 GiB, the delivery counts", async () => {
    let written = 0;
    let authorization: string | undefined;
    let closed: () => void = () => {};
    const receiverClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = createServer((req, res) => {
      authorization = req.headers.authorization;
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        const chunk = Buffer.alloc(1024 * 1024, "z");
        // At most 2 GiB, written only as fast as the client reads it.
        const pump = () => {
          while (written < 2048 * chunk.length && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("close", closed);
        pump();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const hooks = new RunWebhooks({
      urls: [`http://user:secret@127.0.0.1:${(server.address() as AddressInfo).port}/hook?key=s3`],
      token: undefined,
      log,
      attempts: 1,
    });
    hooks.runFinished({
      id: "r1",
      name: "n",
      summary: { total: {} },
      trust: { verdict: "trusted" },
    } as RunDetail);
    await hooks.settle();
    await receiverClosed;
    expect(lines.some((line) => line.includes('"msg":"webhook delivered"'))).toBe(true);
    // The connection is dropped after the head: what the socket buffers took, not gigabytes.
    expect(written).toBeLessThan(256 * 1024 * 1024);
    expect(authorization).toBe(`Basic ${Buffer.from("user:secret").toString("base64")}`);
    // The URL's credentials and query never reach the log.
    expect(lines.join("")).not.toMatch(/secret|key=s3/);
  });
});
