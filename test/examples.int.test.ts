import { createHmac } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { isolatedSetup, ROOT, spawnCli } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// The documented examples, run with `volley run` against a loopback server (target rewritten,
// load scaled down), checked on what the server received.
describe("examples/ run for real", () => {
  let target: TargetServer;
  let dir: string;

  beforeAll(async () => {
    target = await startTargetServer();
    dir = mkdtempSync(join(tmpdir(), "volley-examples-"));
  });
  afterAll(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => target.reset());

  /** Copies an example beside its data files with `changes` applied, runs it, returns the report. */
  async function runExample(
    file: string,
    changes: Record<string, unknown>,
    env: Record<string, string> = {},
  ) {
    const example = parse(readFileSync(join(ROOT, "examples", file), "utf8"));
    const path = join(dir, file);
    writeFileSync(path, stringify({ ...example, target: target.url, ...changes }));
    const setup = isolatedSetup();
    const out = join(dir, `${file}.report.json`);
    const cli = spawnCli(
      ["run", path, "--threads", "2", "--out", out],
      { DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix, ...env },
      ROOT,
    );
    const code = await cli.exited;
    expect(code, cli.output.join("")).toBe(0);
    return JSON.parse(readFileSync(out, "utf8")) as RunDetail;
  }

  it("scripted-login.yaml: logs in, pages through orders, signs each order with an HMAC of its body", async () => {
    copyFileSync(join(ROOT, "examples/scripted-login.ts"), join(dir, "scripted-login.ts"));
    const key = "example-signing-key";
    const report = await runExample(
      "scripted-login.yaml",
      { load: { executor: "per-vu-iterations", vus: 4, iterations: 3 } },
      { SIGNING_KEY: key },
    );
    const iterations = 12;
    const posts = target.log.filter((e) => e.method === "POST" && e.url === "/orders");
    expect(target.log.filter((e) => e.url === "/login")).toHaveLength(iterations);
    expect(target.log.filter((e) => e.method === "GET" && e.url.startsWith("/orders?page="))).toHaveLength(
      5 * iterations,
    );
    expect(posts).toHaveLength(iterations);
    for (const post of posts) {
      expect(post.headers["x-signature"]).toBe(createHmac("sha256", key).update(post.body).digest("hex"));
    }
    expect(report.summary.total.requests).toBe(7 * iterations);
    expect(report.summary.checks).toEqual([
      { name: "logged in", passes: iterations, fails: 0 },
      { name: "order accepted", passes: iterations, fails: 0 },
    ]);
    expect(report.summary.groups?.map((g) => [g.name, g.requests])).toEqual([["checkout", iterations]]);
    expect(report.passed).toBe(true);
  });

  it("traced-cart.yaml: custom metrics from the script, a traceparent on every request, the slowest traced", async () => {
    copyFileSync(join(ROOT, "examples/traced-cart.ts"), join(dir, "traced-cart.ts"));
    const report = await runExample("traced-cart.yaml", {
      load: { executor: "per-vu-iterations", vus: 4, iterations: 4 },
    });
    // Each VU's iterations ask for skus A0..A3; A3 is sold out: 3 orders of 4 carts per VU.
    const iterations = 16;
    const orders = target.log.filter((e) => e.method === "POST" && e.url === "/orders");
    expect(orders).toHaveLength(12);
    expect(report.summary.total.requests).toBe(target.log.length);
    const traceIds = target.log.map((e) => {
      const match = /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(String(e.headers.traceparent));
      expect(match, String(e.headers.traceparent)).not.toBeNull();
      return match?.[1];
    });
    expect(new Set(traceIds).size).toBe(target.log.length);
    const metrics = report.summary.metrics ?? {};
    expect(metrics.orders).toMatchObject({ type: "counter", count: orders.length });
    expect(metrics.in_stock).toMatchObject({ type: "rate", passes: 12, fails: 4, rate: 0.75 });
    expect(metrics.cart_ms).toMatchObject({ type: "trend", unit: "ms", count: iterations });
    expect(metrics.product_bytes?.type).toBe("gauge");
    // Every request name keeps its slowest with trace ids the target received.
    for (const request of report.summary.requests.filter((r) => r.requests > 0)) {
      expect(request.slowest?.length).toBeGreaterThan(0);
      for (const slow of request.slowest ?? []) expect(traceIds).toContain(slow.traceId);
    }
    expect(report.passed).toBe(true);
  });

  it("service-registry-capacity.yaml: a capacity search of registrations, answered in one sentence", async () => {
    copyFileSync(join(ROOT, "examples/instances.csv"), join(dir, "instances.csv"));
    const example = parse(readFileSync(join(ROOT, "examples/service-registry-capacity.yaml"), "utf8"));
    // Three short steps the loopback target meets: the search ends at maxRate. The SLO is the
    // example's but for p95 (1 s, not 100 ms): a 2 s step's p95 is its second-slowest request, and
    // on a CI machine busy with other suites one first connection or GC pause broke the first step.
    // There, too, a thread may begin a little late: the iteration due before it is dropped and
    // warned of (late-start), and the step is still judged on what was sent.
    const report = await runExample("service-registry-capacity.yaml", {
      load: {
        ...example.load,
        startRate: 20,
        step: 20,
        stepDuration: "2s",
        maxRate: 60,
        maxVus: 50,
        slo: { ...example.load.slo, p95: "<1s" },
      },
    });
    const capacity = report.summary.capacity;
    expect(capacity).toMatchObject({
      sustainedRate: 60,
      breakingRate: null,
      limitedBy: "maxRate",
      request: "register",
    });
    expect(capacity?.steps.map((s) => [s.rate, s.ok])).toEqual([
      [20, true],
      [40, true],
      [60, true],
    ]);
    expect(capacity?.sentence).toMatch(
      /^Sustains 60 req\/s with p95 [\d.]+ ms on register, the highest rate tried/,
    );
    const registrations = target.log.filter((e) => e.method === "POST" && e.url === "/nacos/v1/ns/instance");
    const lateStarts = report.warnings
      .filter((w) => w.kind === "late-start")
      .reduce((sum, w) => sum + (w.count ?? 0), 0);
    expect(report.summary.total.dropped).toBe(lateStarts);
    expect(registrations.length + lateStarts).toBe(2 * (20 + 40 + 60));
    expect(report.summary.total.requests).toBe(registrations.length);
  });

  it("service-registry.yaml: every instance registered, queried and deregistered exactly once", async () => {
    copyFileSync(join(ROOT, "examples/instances.csv"), join(dir, "instances.csv"));
    const rows = readFileSync(join(ROOT, "examples/instances.csv"), "utf8").trim().split("\n").length - 1;
    const report = await runExample("service-registry.yaml", {
      load: { executor: "per-vu-iterations", vus: 30, iterations: rows / 30 },
    });
    const registered = target.log
      .filter((e) => e.method === "POST")
      .map((e) => {
        const form = new URLSearchParams(e.body);
        return `${form.get("ip")}:${form.get("port")}`;
      });
    expect(registered).toHaveLength(rows);
    expect(new Set(registered).size).toBe(rows);
    const deregistered = target.log
      .filter((e) => e.method === "DELETE")
      .map((e) => {
        const query = new URL(e.url, "http://x").searchParams;
        return `${query.get("ip")}:${query.get("port")}`;
      });
    expect(new Set(deregistered)).toEqual(new Set(registered));
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r.requests]));
    expect(byName).toEqual({ register: rows, query: rows, deregister: rows });
    expect(report.summary.groups?.[0]).toMatchObject({ name: "lifecycle", requests: rows, failures: 0 });
    expect(report.passed).toBe(true);
  });

  it("shop-mix.yaml: flows by weight, the env key in the login, a timed group and a repeat", async () => {
    const report = await runExample(
      "shop-mix.yaml",
      {
        load: { executor: "per-vu-iterations", vus: 10, iterations: 90 },
        thinkTime: { distribution: "exponential", mean: "1ms" },
      },
      { SHOP_API_KEY: "example-key" },
    );
    const count = (prefix: string) => target.log.filter((e) => e.url.startsWith(prefix)).length;
    const [items, searches, logins] = [count("/items/"), count("/search"), count("/login")];
    expect(items + searches + logins).toBe(900);
    // Each iteration draws its flow at random: 6 : 2 : 1 within five standard deviations of the
    // binomial count (a bound a fair draw misses about once in two million runs; 20 % was 1.2 sd).
    const withinDraw = (seen: number, share: number) => {
      const sd = Math.sqrt(900 * share * (1 - share));
      expect(Math.abs(seen - 900 * share)).toBeLessThan(5 * sd);
    };
    withinDraw(items, 6 / 9);
    withinDraw(searches, 2 / 9);
    withinDraw(logins, 1 / 9);
    expect(logins).toBeGreaterThan(0);
    expect(count("/orders/latest")).toBe(3 * logins);
    expect(
      target.log.filter((e) => e.url === "/login").every((e) => JSON.parse(e.body).key === "example-key"),
    ).toBe(true);
    expect(report.summary.groups?.find((g) => g.name === "payment")?.requests).toBe(logins);
    expect(report.summary.total.requests).toBe(target.total());
    expect(JSON.stringify(report)).not.toContain("example-key");
  });
});
