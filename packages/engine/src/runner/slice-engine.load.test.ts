import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startTargetServer, type TargetServer } from "../../../../test/support/target-server.js";
import { HTTP_CLIENTS, runSlice, useHttpClient } from "../test-support/run-slice.js";
import { selfSignedCert } from "../test-support/self-signed.js";

let server: TargetServer;
beforeAll(async () => {
  server = await startTargetServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const base = () => ({ name: "t", target: server.url });

describe.each(HTTP_CLIENTS)("SliceEngine on the %s client", (client) => {
  beforeAll(() => useHttpClient(client));

  it("per-vu-iterations sends exactly vus x iterations x requests, with captured tokens", async () => {
    const { aggregate, periods } = await runSlice({
      ...base(),
      load: { executor: "per-vu-iterations", vus: 20, iterations: 15 },
      requests: [
        {
          name: "login",
          method: "POST",
          path: "/login",
          body: { user: "u{{vu}}" },
          capture: { token: "json.token" },
        },
        {
          name: "order",
          method: "POST",
          path: "/orders",
          headers: { authorization: "Bearer {{token}}" },
          expect: { status: 200 },
        },
      ],
    });
    expect(server.counts.get("/login")).toBe(300);
    expect(server.counts.get("/orders")).toBe(300);
    expect(aggregate.get("login")?.requests).toBe(300);
    expect(aggregate.get("order")?.requests).toBe(300);
    expect(aggregate.total().failures).toBe(0);
    expect(aggregate.get("order")?.statusCodes).toEqual({ "200": 300 });
    expect(periods.at(-1)?.final).toBe(true);
    expect(periods.map((p) => p.second)).toEqual(periods.map((_, i) => i));
  });

  it("constant-vus counts every request the server saw, including the last second", async () => {
    const { aggregate, periods, elapsedMs } = await runSlice({
      ...base(),
      load: { executor: "constant-vus", vus: 10, duration: "1500ms" },
      requests: [{ path: "/hello" }],
    });
    expect(aggregate.total().requests).toBe(server.total());
    expect(server.total()).toBeGreaterThan(100);
    expect(periods.length).toBeGreaterThanOrEqual(2);
    expect(elapsedMs).toBeLessThan(3000);
    expect(aggregate.get("GET /hello")?.bytesIn).toBeGreaterThan(server.total() * 11);
  });

  it("under heavy load writes in batches and still counts exactly what the server saw", async () => {
    const { aggregate, engine } = await runSlice({
      ...base(),
      load: { executor: "constant-vus", vus: 20, duration: "1500ms" },
      requests: [{ path: "/hello" }, { method: "POST", path: "/echo", body: { n: "{{iter}}" } }],
    });
    expect(aggregate.total().requests).toBe(server.total());
    expect(aggregate.total().failures).toBe(0);
    expect(aggregate.get("GET /hello")?.requests).toBe(server.counts.get("/hello"));
    // Volley's own client batched (a busy thread); undici's writes its own way.
    if (client === "volley") expect(engine.batchedWrites).toBeGreaterThan(server.total() / 4);
    else expect(engine.batchedWrites).toBe(0);
  });

  it("classifies connect errors, timeouts, resets, unexpected statuses and failed expectations", async () => {
    const closed = await startTargetServer();
    const closedUrl = closed.url;
    await closed.close();
    const refused = await runSlice({
      name: "refused",
      target: closedUrl,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      requests: [{ name: "r", path: "/" }],
    });
    expect(refused.aggregate.get("r")).toMatchObject({ requests: 6, failures: 6 });
    expect(refused.aggregate.get("r")?.errors.list()[0]).toMatchObject({ kind: "connect", count: 6 });

    const { aggregate } = await runSlice({
      ...base(),
      load: { executor: "per-vu-iterations", vus: 2, iterations: 2 },
      requests: [
        { name: "slow", path: "/slow?ms=2000", timeout: "150ms" },
        { name: "500", path: "/status/500", expect: { status: 200 } },
        { name: "404", path: "/status/404" },
        { name: "body", path: "/hello", expect: { body: "goodbye" } },
        { name: "capture", path: "/hello", capture: { x: "json.x" } },
        { name: "reset", path: "/reset" },
      ],
    });
    const kinds = (name: string) =>
      aggregate
        .get(name)
        ?.errors.list()
        .map((e) => [e.kind, e.count]);
    expect(kinds("slow")).toEqual([["timeout", 4]]);
    expect(kinds("500")).toEqual([["status", 4]]);
    expect(kinds("404")).toEqual([["status", 4]]);
    expect(kinds("body")).toEqual([["expect", 4]]);
    expect(kinds("capture")).toEqual([["expect", 4]]);
    expect(kinds("reset")).toEqual([["reset", 4]]);
    expect(aggregate.get("slow")?.latencySummary().min).toBeGreaterThanOrEqual(150);
  });

  it("constant-arrival-rate holds its rate within 5% and counts dropped iterations", async () => {
    const { aggregate } = await runSlice({
      ...base(),
      load: { executor: "constant-arrival-rate", rate: 400, duration: "2s", maxVus: 20 },
      requests: [{ path: "/hello" }],
    });
    expect(Math.abs(aggregate.total().requests - 800) / 800).toBeLessThanOrEqual(0.05);
    expect(aggregate.dropped).toBe(0);

    const starved = await runSlice({
      ...base(),
      load: { executor: "constant-arrival-rate", rate: 50, duration: "1s", maxVus: 2 },
      requests: [{ path: "/slow?ms=300" }],
    });
    const { requests } = starved.aggregate.total();
    expect(requests + starved.aggregate.dropped).toBe(50);
    expect(starved.aggregate.dropped).toBeGreaterThan(30);
  });

  it("a server stall under an arrival rate raises p95 instead of disappearing", async () => {
    const run = runSlice({
      ...base(),
      load: { executor: "constant-arrival-rate", rate: 100, duration: "3s", maxVus: 200 },
      requests: [{ path: "/hello" }],
    });
    setTimeout(() => {
      server.stallUntil = Date.now() + 1000;
    }, 1000);
    const { aggregate } = await run;
    const latency = aggregate.total().latencySummary();
    expect(aggregate.dropped).toBe(0);
    expect(latency.p95).toBeGreaterThan(400);
    expect(latency.max).toBeGreaterThan(900);
    expect(latency.p50).toBeLessThan(50);
  });

  it("ramping-vus follows its stages (VUs per second are the most active at once)", async () => {
    const { periods } = await runSlice({
      ...base(),
      load: {
        executor: "ramping-vus",
        stages: [
          { duration: "2s", target: 10 },
          { duration: "1s", target: 10 },
          { duration: "1s", target: 0 },
          { duration: "1s", target: 0 },
        ],
      },
      requests: [{ path: "/hello" }],
      thinkTime: "10ms",
    });
    const vus = periods.map((p) => p.vus);
    expect(vus[0]).toBeGreaterThanOrEqual(4);
    expect(vus[0]).toBeLessThanOrEqual(6);
    expect(vus[1]).toBeGreaterThanOrEqual(9);
    expect(vus[2]).toBe(10);
    expect(vus[4]).toBeLessThanOrEqual(1);
  });

  it("captures from headers, regexes and nested JSON feed later requests", async () => {
    const { aggregate } = await runSlice({
      ...base(),
      load: { executor: "per-vu-iterations", vus: 2, iterations: 2 },
      requests: [
        {
          name: "login",
          method: "POST",
          path: "/login",
          body: { user: "u{{vu}}" },
          capture: {
            user: "json.user.id",
            served: "header.x-request-path",
            token: 'regex:"token":"([^"]+)"',
          },
        },
        { name: "next", path: "/echo?user={{user}}&served={{served}}&token={{token}}" },
      ],
    });
    expect(aggregate.total().failures).toBe(0);
    const echoed = server.log
      .filter((e) => e.url.startsWith("/echo"))
      .map((e) => new URL(e.url, "http://x").searchParams);
    expect(echoed).toHaveLength(4);
    for (const query of echoed) {
      expect(query.get("served")).toBe("/login");
      expect(query.get("token")).toBe(`t-${query.get("user")}`);
    }
    expect(new Set(echoed.map((q) => q.get("user")))).toEqual(new Set(["u1", "u2"]));
  });

  it("constant-vus with rampUp starts VU i of N at rampUp * i / N", async () => {
    const started = Date.now() + 20;
    await runSlice({
      ...base(),
      load: { executor: "constant-vus", vus: 5, duration: "1500ms", rampUp: "1s" },
      requests: [{ path: "/echo?vu={{vu}}" }],
      thinkTime: "50ms",
    });
    const firstAt = new Map<number, number>();
    for (const entry of server.log) {
      const vu = Number(new URL(entry.url, "http://x").searchParams.get("vu"));
      if (!firstAt.has(vu)) firstAt.set(vu, entry.at - started);
    }
    expect([...firstAt.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    for (const [vu, at] of firstAt) {
      expect(at, `VU ${vu}`).toBeGreaterThanOrEqual((vu - 1) * 200 - 30);
      expect(at, `VU ${vu}`).toBeLessThan((vu - 1) * 200 + 120);
    }
  });

  it("ramping-arrival-rate integrates its stages: 0 to 100/s over 2 s is 100 iterations", async () => {
    const { aggregate } = await runSlice({
      ...base(),
      load: { executor: "ramping-arrival-rate", stages: [{ duration: "2s", target: 100 }], maxVus: 20 },
      requests: [{ path: "/hello" }],
    });
    expect(Math.abs(aggregate.total().requests - 100)).toBeLessThanOrEqual(5);
    expect(aggregate.dropped).toBe(0);
    const times = server.log.map((e) => e.at).sort((a, b) => a - b);
    const firstHalf = times.filter((t) => t < times[0] + 1000).length;
    // A linear ramp puts a quarter of the iterations in the first half of the time.
    expect(firstHalf).toBeGreaterThanOrEqual(18);
    expect(firstHalf).toBeLessThanOrEqual(32);
  });

  it("closes idle sockets after keepAliveTimeout and every socket at the end", async () => {
    const scenario = (keepAlive: string) => ({
      ...base(),
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      requests: [{ path: "/hello" }],
      thinkTime: "800ms",
      http: { keepAliveTimeout: keepAlive },
    });
    const before = server.connections.accepted;
    await runSlice(scenario("300ms"));
    expect(server.connections.accepted - before).toBe(2);
    const middle = server.connections.accepted;
    await runSlice(scenario("5s"));
    expect(server.connections.accepted - middle).toBe(1);
    await vi.waitFor(() => expect(server.connections.open).toBe(0), { timeout: 1000 });
  });

  it("aborts iterations still running at the end of gracefulStop and counts them", async () => {
    const { aggregate, elapsedMs } = await runSlice({
      ...base(),
      load: { executor: "constant-vus", vus: 3, duration: "300ms", gracefulStop: "300ms" },
      requests: [{ name: "slow", path: "/slow?ms=5000" }],
    });
    expect(aggregate.get("slow")?.requests).toBe(3);
    expect(aggregate.get("slow")?.errors.list()).toEqual([
      expect.objectContaining({ kind: "aborted", count: 3 }),
    ]);
    expect(elapsedMs).toBeLessThan(2000);
  });

  it("renders templates with globally unique VU numbers from the partition", async () => {
    const scenario = {
      ...base(),
      load: { executor: "per-vu-iterations", vus: 6, iterations: 2 },
      requests: [
        {
          method: "POST",
          path: "/echo?vu={{vu}}&iter={{iter}}&r={{randomInt 3 4}}",
          headers: { "x-worker": "{{worker}}", "x-id": "{{uuid}}" },
          body: { note: 'quote " {{vu}}', at: "{{now}}" },
        },
      ],
    };
    await Promise.all([0, 1].map((index) => runSlice(scenario, [{ weights: [1, 1], index }])));
    const sent = server.log.map((entry) => new URL(entry.url, "http://x").searchParams);
    expect(sent).toHaveLength(12);
    const vus = sent.filter((q) => q.get("iter") === "0").map((q) => Number(q.get("vu")));
    expect(vus.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sent.filter((q) => q.get("iter") === "1")).toHaveLength(6);
    expect(sent.every((q) => ["3", "4"].includes(q.get("r") ?? ""))).toBe(true);
    expect(server.log.every((e) => e.headers["x-worker"] === "test-worker")).toBe(true);
    expect(new Set(server.log.map((e) => e.headers["x-id"])).size).toBe(12);
    expect(server.log[0].headers["content-type"]).toBe("application/json");
  });

  it("speaks TLS: refuses a self-signed certificate unless insecureTls is set", async () => {
    const tls = createServer(selfSignedCert(), (_req, res) => {
      res.end("secure");
    });
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    try {
      const scenario = (insecureTls: boolean) => ({
        name: "tls",
        target: url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        requests: [{ name: "tls", path: "/" }],
        http: { insecureTls },
      });
      const strict = await runSlice(scenario(false));
      expect(strict.aggregate.get("tls")?.errors.list()).toEqual([
        expect.objectContaining({ kind: "connect", count: 6 }),
      ]);
      const relaxed = await runSlice(scenario(true));
      expect(relaxed.aggregate.get("tls")).toMatchObject({ requests: 6, failures: 0 });
    } finally {
      tls.close();
    }
  });
});
