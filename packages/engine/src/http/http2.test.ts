import { createSecureServer, type Http2SecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSlice } from "../test-support/run-slice.js";
import { selfSignedCert } from "../test-support/self-signed.js";

let server: Http2SecureServer;
let url: string;
const seen = { versions: new Map<string, number>(), sessions: 0, bodies: [] as string[] };

// A node HTTP/2 server over TLS (ALPN h2 only: an HTTP/1.1 client cannot talk to it).
beforeAll(async () => {
  server = createSecureServer({ ...selfSignedCert(), allowHTTP1: false }, (req, res) => {
    seen.versions.set(req.httpVersion, (seen.versions.get(req.httpVersion) ?? 0) + 1);
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (body) seen.bodies.push(body);
      res.setHeader("x-token", "h2-token");
      res.end(req.url === "/json" ? '{"id":7}' : "hello h2");
    });
  });
  server.on("session", () => {
    seen.sessions++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("HTTP/2 over TLS", () => {
  it("multiplexes the VUs over one session; exact counts, captures and expectations as on HTTP/1.1", async () => {
    const { aggregate } = await runSlice({
      name: "h2",
      target: url,
      load: { executor: "per-vu-iterations", vus: 20, iterations: 10 },
      http: { version: 2, insecureTls: true },
      requests: [
        { name: "json", path: "/json", capture: { id: "json.id", token: "header.x-token" } },
        {
          name: "post",
          method: "POST",
          path: "/p",
          body: "{{id}}-{{token}}",
          expect: { status: 200, body: "hello" },
        },
      ],
    });
    expect(aggregate.get("json")).toMatchObject({ requests: 200, failures: 0 });
    expect(aggregate.get("post")).toMatchObject({ requests: 200, failures: 0 });
    expect(seen.versions).toEqual(new Map([["2.0", 400]]));
    expect(seen.sessions).toBe(1);
    expect(new Set(seen.bodies)).toEqual(new Set(["7-h2-token"]));
  });

  it("is refused for a cleartext target, naming the field", async () => {
    await expect(
      runSlice({
        name: "h2c",
        target: "http://127.0.0.1:1",
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        http: { version: 2 },
        requests: [{ path: "/" }],
      }),
    ).rejects.toThrow("target: HTTP/2 runs over TLS: use https:// (cleartext h2c is not supported)");
  });
});
