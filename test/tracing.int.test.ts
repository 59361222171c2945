import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningMaster } from "@volley/master";
import type { RunDetail, RunSummary } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// http.tracing across two workers: the target reads a valid W3C traceparent on every request,
// delays some and fails others; the report's slowest requests and error trace ids are exactly
// the ones the target chose.
let fleet: TestFleet;
let master: RunningMaster;
let target: Server;
let targetUrl = "";

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;
/** The nth request (from 1) the target delays, and by how long: 900, 800 ... 400 ms (far past any undelayed request, even on a loaded machine). */
const DELAYED = new Map([20, 40, 60, 80, 100, 120].map((n, i) => [n, 900 - i * 100]));
/** The nth requests the target answers 500. */
const FAILED = new Set([7, 77, 133]);

interface Seen {
  traceparent: string | undefined;
  path: string;
}
let seen: Seen[] = [];
const delayedIds: Array<{ traceId: string; ms: number }> = [];
const failedIds: string[] = [];

beforeAll(async () => {
  target = createServer((req, res) => {
    const traceparent = req.headers.traceparent as string | undefined;
    seen.push({ traceparent, path: req.url ?? "" });
    const n = seen.length;
    const traceId = TRACEPARENT_RE.exec(traceparent ?? "")?.[1] ?? "";
    const delay = req.url?.startsWith("/traced") ? DELAYED.get(n) : undefined;
    const status = req.url?.startsWith("/traced") && FAILED.has(n) ? 500 : 200;
    if (delay !== undefined) delayedIds.push({ traceId, ms: delay });
    if (status === 500) failedIds.push(traceId);
    setTimeout(() => res.writeHead(status, { "content-length": 2 }).end("ok"), delay ?? 0);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  fleet = await startTestFleet({ workers: 2 });
  ({ master } = fleet);
});
afterAll(async () => {
  await fleet?.close();
  await new Promise((resolve) => target?.close(resolve));
});

async function run(scenario: Record<string, unknown>, scripts?: Record<string, string>): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, { scenario, ...(scripts && { scripts }) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
}

describe("http.tracing", () => {
  it("sends a new valid traceparent on every request and reports the slowest and failed requests' trace ids", async () => {
    seen = [];
    const report = await run({
      name: "traced",
      target: targetUrl,
      load: { executor: "per-vu-iterations", vus: 4, iterations: 40 },
      requests: [{ name: "traced", path: "/traced" }],
      http: {
        tracing: { propagate: "w3c", sample: 0.5, linkTemplate: "https://tempo.example/trace/{traceId}" },
      },
    });
    expect(report.status).toBe("finished");
    expect(seen).toHaveLength(160);
    expect(report.summary.total.requests).toBe(seen.length);
    expect(report.workers.filter((w) => w.requests > 0)).toHaveLength(2);
    const parsed = seen.map((s) => TRACEPARENT_RE.exec(s.traceparent ?? ""));
    expect(
      parsed.every((m) => m !== null),
      "every request carries a valid traceparent",
    ).toBe(true);
    const traceIds = parsed.map((m) => m?.[1] as string);
    expect(new Set(traceIds).size).toBe(seen.length);
    expect(traceIds.every((id) => !/^0+$/.test(id))).toBe(true);
    // The sampled flag on about half: 160 draws at 0.5 fall in 50..110 but for one in 10^5.
    const sampled = parsed.filter((m) => m?.[3] === "01").length;
    expect(sampled).toBeGreaterThan(50);
    expect(sampled).toBeLessThan(110);

    // The five slowest the report keeps are the five the target delayed longest, in order.
    const traced = report.summary.requests.find((r) => r.name === "traced");
    expect(traced?.slowest?.map((s) => s.traceId)).toEqual(delayedIds.slice(0, 5).map((d) => d.traceId));
    // Less 1 ms: a timer fires on the loop's cached millisecond clock, up to 1 ms before the
    // exact delay as the client's clock reads it (499.92 for 500 was seen).
    traced?.slowest?.forEach((s, i) => {
      expect(s.ms).toBeGreaterThanOrEqual(delayedIds[i].ms - 1);
    });
    // Every failure's trace id, under its error.
    const errors = report.summary.errors.filter((e) => e.request === "traced");
    expect(errors.map((e) => e.kind)).toEqual(["status"]);
    expect([...(errors[0].traceIds ?? [])].sort()).toEqual([...failedIds].sort());

    // A window around the longest delay has it as its slowest: a spike leads to its trace.
    const startedAt = Date.parse(report.startedAt as string);
    const second = Math.floor(((traced?.slowest?.[0].at ?? startedAt) - startedAt) / 1000);
    const window = await getJson<RunSummary>(
      `${master.url}/api/runs/${report.id}/summary?from=${Math.max(0, second - 1)}&to=${second + 2}`,
    );
    expect(window.requests.find((r) => r.name === "traced")?.slowest?.[0].traceId).toBe(
      delayedIds[0].traceId,
    );

    const html = await fetch(`${master.url}/api/runs/${report.id}/report.html`).then((r) => r.text());
    expect(html).toContain(`https://tempo.example/trace/${delayedIds[0].traceId}`);
  });

  it("traces a script's requests too, and refuses a link template that is not an http(s) URL with {traceId}", async () => {
    seen = [];
    const report = await run(
      {
        name: "traced-script",
        target: targetUrl,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        script: "flow.js",
        http: { tracing: { propagate: "w3c" } },
      },
      {
        // A call with no options too: the request prepared once for it must still get a new id each time.
        "flow.js":
          'export default async function (vu) { await vu.http.get("/plain", { name: "plain" }); await vu.http.get("/plain?bare"); }',
      },
    );
    expect(report.summary.total.requests).toBe(20);
    expect(seen).toHaveLength(20);
    expect(seen.every((s) => TRACEPARENT_RE.exec(s.traceparent ?? "")?.[3] === "01")).toBe(true);
    expect(new Set(seen.map((s) => s.traceparent)).size).toBe(20);
    const plain = report.summary.requests.find((r) => r.name === "plain");
    expect(plain?.slowest).toHaveLength(5);
    const sent = new Set(seen.map((s) => TRACEPARENT_RE.exec(s.traceparent ?? "")?.[1]));
    expect(plain?.slowest?.every((s) => sent.has(s.traceId))).toBe(true);

    const refused = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "bad-template",
        target: targetUrl,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ path: "/plain" }],
        http: { tracing: { propagate: "w3c", linkTemplate: "javascript:alert({traceId})" } },
      },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("http.tracing.linkTemplate");
  });

  it("sends it over HTTP/2 too, on Volley's client (beside the headers) and undici's (in them)", async () => {
    const { createServer: createH2 } = await import("node:http2");
    const received: Array<string | undefined> = [];
    const h2 = createH2((req, res) => {
      received.push(req.headers.traceparent as string | undefined);
      res.end("ok");
    });
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
    try {
      for (const client of ["volley", "undici"] as const) {
        received.length = 0;
        const report = await run({
          name: "traced-h2c",
          target: `http://127.0.0.1:${(h2.address() as AddressInfo).port}`,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 4 },
          requests: [{ name: "h2", path: "/h2" }],
          http: { version: "2c", client, tracing: { propagate: "w3c" } },
        });
        expect(report.summary.total.requests).toBe(8);
        expect(received).toHaveLength(8);
        const ids = received.map((tp) => TRACEPARENT_RE.exec(tp ?? "")?.[1]);
        expect(ids.every((id) => id !== undefined)).toBe(true);
        expect(new Set(ids).size).toBe(8);
        const h2Slowest = report.summary.requests.find((r) => r.name === "h2")?.slowest ?? [];
        expect(h2Slowest).toHaveLength(5);
        expect(h2Slowest.every((s) => ids.includes(s.traceId))).toBe(true);
      }
    } finally {
      await new Promise((resolve) => h2.close(resolve));
    }
  });

  it("gives /metrics in OpenMetrics a running run's slowest trace as an exemplar", async () => {
    seen = [];
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "traced-live",
        target: targetUrl,
        load: { executor: "constant-vus", vus: 2, duration: "4s" },
        thinkTime: "20ms",
        requests: [{ name: "live", path: "/live" }],
        http: { tracing: { propagate: "w3c" } },
      },
    });
    expect(created.status).toBe(201);
    const exemplarRe =
      /^volley_requests_total\{[^}]*request="live"[^}]*status="200"[^}]*\} \d+ # \{trace_id="([0-9a-f]{32})"\} 1/m;
    let exemplar: string | undefined;
    await waitFor(
      async () => {
        const response = await fetch(`${master.url}/metrics`, {
          headers: { accept: "application/openmetrics-text; version=1.0.0" },
        });
        expect(response.headers.get("content-type")).toContain("application/openmetrics-text");
        exemplar = exemplarRe.exec(await response.text())?.[1];
        return exemplar !== undefined;
      },
      { what: "an exemplar on the live run's requests", timeoutMs: 15_000 },
    );
    const sent = new Set(seen.map((s) => TRACEPARENT_RE.exec(s.traceparent ?? "")?.[1]));
    expect(sent.has(exemplar)).toBe(true);
    // Prometheus's own text format has no exemplars.
    const plain = await fetch(`${master.url}/metrics`).then((r) => r.text());
    expect(plain).not.toContain("trace_id");
    await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 30_000);
  });

  it("sends no traceparent without http.tracing", async () => {
    seen = [];
    const report = await run({
      name: "untraced",
      target: targetUrl,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
      requests: [{ path: "/plain" }],
    });
    expect(report.summary.total.requests).toBe(3);
    expect(seen.map((s) => s.traceparent)).toEqual([undefined, undefined, undefined]);
    expect(report.summary.requests[0].slowest).toBeUndefined();
  });
});
