import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_CLIENTS, runSlice, useHttpClient } from "../test-support/run-slice.js";
import { basicAuthorization } from "./basic-auth.js";

// Credentials in a URL reach the server as Basic authentication (they were dropped: every request 401).
let server: Server;
let port: number;
const seen: Array<{ url: string; authorization: string | undefined }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;

describe("basicAuthorization", () => {
  it("decodes percent-encoded credentials; none without them", () => {
    expect(basicAuthorization(new URL("http://al%40ice:s%3Acret@h/"))).toBe(basic("al@ice:s:cret"));
    expect(basicAuthorization(new URL("http://only@h/"))).toBe(basic("only:"));
    expect(basicAuthorization(new URL("http://h/"))).toBeNull();
  });
});

describe.each(HTTP_CLIENTS)("URL credentials (%s client)", (client) => {
  beforeAll(() => useHttpClient(client));

  it("the target's and an absolute url's credentials are sent; an explicit header wins", async () => {
    seen.length = 0;
    const { aggregate } = await runSlice({
      name: "credentials",
      target: `http://alice:s%40cret@127.0.0.1:${port}`,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      requests: [
        { name: "target", path: "/a" },
        { name: "absolute", url: `http://bob:pw@127.0.0.1:${port}/b` },
        { name: "explicit", path: "/c", headers: { Authorization: "Bearer mine" } },
      ],
    });
    expect(aggregate.total().requests).toBe(6);
    const by = (url: string) => [...new Set(seen.filter((s) => s.url === url).map((s) => s.authorization))];
    expect(by("/a")).toEqual([basic("alice:s@cret")]);
    expect(by("/b")).toEqual([basic("bob:pw")]);
    expect(by("/c")).toEqual(["Bearer mine"]);
  });
});
