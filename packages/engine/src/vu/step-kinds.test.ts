import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSlice } from "../test-support/run-slice.js";

let server: Server;
let url: string;
const paths: string[] = [];
const arrivals = new Map<string, number>();
beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? "");
    arrivals.set(req.url ?? "", performance.now());
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("{{repeat}}", () => {
  it("is the turn of the innermost repeat a request is in, 0 outside any", async () => {
    await runSlice({
      name: "repeats",
      target: url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      requests: [
        { name: "first", path: "/first/{{repeat}}" },
        {
          repeat: 2,
          requests: [
            { name: "outer", path: "/outer/{{repeat}}" },
            { repeat: 3, requests: [{ name: "inner", path: "/inner/{{repeat}}" }] },
          ],
        },
      ],
    });
    expect(paths).toEqual([
      "/first/0",
      "/outer/0",
      "/inner/0",
      "/inner/1",
      "/inner/2",
      "/outer/1",
      "/inner/0",
      "/inner/1",
      "/inner/2",
    ]);
  });
});

describe("a sleep step", () => {
  it("pauses between the steps around it, as written", async () => {
    paths.length = 0;
    const { aggregate } = await runSlice({
      name: "sleeps",
      target: url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      requests: [{ path: "/before" }, { sleep: "150ms" }, { path: "/after" }],
    });
    expect(paths).toEqual(["/before", "/after"]);
    expect((arrivals.get("/after") ?? 0) - (arrivals.get("/before") ?? 0)).toBeGreaterThanOrEqual(149);
    expect(aggregate.total().requests).toBe(2);
  });
});
