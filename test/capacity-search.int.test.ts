import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// A target with a known capacity: it serves at most CAPACITY requests in each wall-clock second
// and answers 503 beyond. The search must find it within 15 %, on two workers.
const CAPACITY = 110;
let fleet: TestFleet;
let capped: Server;
let cappedUrl: string;
let served = 0;
let refused = 0;

beforeAll(async () => {
  let window = 0;
  let inWindow = 0;
  capped = createServer((_req, res) => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== window) {
      window = now;
      inWindow = 0;
    }
    if (++inWindow > CAPACITY) {
      refused++;
      res.writeHead(503).end("busy");
      return;
    }
    served++;
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  await new Promise<void>((resolve) => capped.listen(0, "127.0.0.1", resolve));
  cappedUrl = `http://127.0.0.1:${(capped.address() as AddressInfo).port}`;
  // Threads load before the first step (a late start is a catch-up burst the judge would blame on maxVus).
  fleet = await startTestFleet({ workers: 2, master: { startDelayMs: 1500 } });
});
afterAll(async () => {
  await fleet?.close();
  await new Promise((resolve) => capped?.close(resolve));
});

describe("capacity-search", () => {
  it("finds a server's capacity step by step and stops at the confirmed breaking point", async () => {
    const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "capacity",
        target: cappedUrl,
        load: {
          executor: "capacity-search",
          startRate: 20,
          step: 20,
          stepDuration: "2s",
          maxRate: 300,
          maxVus: 100,
          slo: { p95: "<500ms", errorRate: "<1%", request: "cap" },
        },
        requests: [{ name: "cap", path: "/cap" }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = Date.now();
    const run = await waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
    expect(run.status).toBe("finished");
    expect(run.stopReason).toBe("capacity");
    const capacity = run.summary.capacity;
    expect(capacity, JSON.stringify(run.summary)).toBeDefined();
    if (!capacity) return;
    expect(capacity.searching).toBe(false);
    expect(capacity.limitedBy).toBe("errorRate");
    expect(capacity.request).toBe("cap");
    // Within 15 % of the real capacity, and the breaking step is the next one up.
    expect(Math.abs((capacity.sustainedRate ?? 0) - CAPACITY) / CAPACITY).toBeLessThanOrEqual(0.15);
    expect(capacity.breakingRate).toBe((capacity.sustainedRate ?? 0) + 20);
    // Every step up to the breaking one was judged in order; the one after confirmed it.
    const rates = capacity.steps.map((s) => s.rate);
    expect(rates).toEqual(rates.map((_, i) => 20 + 20 * i));
    const breaking = capacity.steps.findIndex((s) => s.rate === capacity.breakingRate);
    expect(capacity.steps.slice(0, breaking).every((s) => s.ok || s.noise)).toBe(true);
    expect(capacity.steps[breaking + 1]?.ok).toBe(false);
    expect(capacity.steps[breaking].errorRate).toBeGreaterThan(0.01);
    expect(capacity.steps[1].achievedRps).toBeCloseTo(40, -1);
    expect(capacity.sentence).toMatch(
      new RegExp(
        `^Sustains ${capacity.sustainedRate} req/s with p95 [\\d.]+ ms on cap; at ${capacity.breakingRate} req/s [\\d.]+ % errors on cap \\(SLO errorRate <1%\\)\\.$`,
      ),
    );
    // It stopped at the answer, long before the planned 15 steps (30 s), and counted everything.
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(run.summary.total.requests).toBe(served + refused);
    expect(run.summary.total.failures).toBe(refused);
  });

  it("refuses a search beside another load, and bad steps, naming the field", async () => {
    const bad = async (load: Record<string, unknown>) =>
      sendJson("POST", `${fleet.master.url}/api/runs`, {
        scenario: { name: "bad", target: cappedUrl, load, requests: [{ name: "cap", path: "/cap" }] },
      });
    const base = { executor: "capacity-search", startRate: 10, stepDuration: "2s", maxRate: 100, maxVus: 10 };
    const both = await bad({ ...base, step: 10, factor: 2, slo: { p95: "<1s" } });
    expect(both.status).toBe(400);
    expect(both.body.details?.[0]).toMatchObject({
      path: "load.step",
      message: expect.stringContaining("either step"),
    });
    const tooMany = await bad({ ...base, step: 0.5, slo: { p95: "<1s" } });
    expect(tooMany.body.details?.[0].message).toContain("more than 100 steps");
    const noSlo = await bad({ ...base, step: 10, slo: {} });
    expect(noSlo.body.details?.[0]).toMatchObject({ path: "load.slo" });
    const halfSecond = await bad({ ...base, step: 10, stepDuration: "1500ms", slo: { p95: "<1s" } });
    expect(halfSecond.body.details?.[0]).toMatchObject({ path: "load.stepDuration" });
    const unknownRequest = await bad({ ...base, step: 10, slo: { p95: "<1s", request: "nope" } });
    expect(unknownRequest.body.details?.[0]).toMatchObject({ path: "load.slo.request" });
    const mixed = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "mixed",
        target: cappedUrl,
        scenarios: {
          search: { load: { ...base, step: 10, slo: { p95: "<1s" } }, requests: [{ name: "a", path: "/a" }] },
          other: {
            load: { executor: "constant-vus", vus: 1, duration: "1s" },
            requests: [{ name: "b", path: "/b" }],
          },
        },
      },
    });
    expect(mixed.status).toBe(400);
    expect(JSON.stringify(mixed.body.details)).toContain("capacity-search runs alone");
    const patched = await sendJson("PATCH", `${fleet.master.url}/api/runs/nope/load`, { rate: 5 });
    expect(patched.status).toBe(404);
  });
});
