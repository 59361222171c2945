import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
let master: RunningMaster;
let worker: WorkerNode;

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster();
});
afterAll(async () => {
  await worker?.shutdown(2000);
  await master?.close();
  await target?.close();
});

const quick = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  target: target.url,
  load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
  requests: [
    { name: "hello", path: "/hello" },
    { name: "missing", path: "/status/404", expect: { status: 404 } },
  ],
  ...extra,
});

async function runToEnd(scenario: unknown): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, { scenario });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd(master.url, created.body.id as string);
}

describe("HTTP API", () => {
  it("health says Redis and the database are up", async () => {
    expect(await getJson(`${master.url}/api/health`)).toMatchObject({
      ok: true,
      redis: "up",
      database: "up",
      databaseProvider: "sqlite",
    });
  });

  it("refuses a run when no worker is ready (409)", async () => {
    const answer = await sendJson("POST", `${master.url}/api/runs`, { scenario: quick("nobody") });
    expect(answer).toMatchObject({ status: 409, body: { code: "VOL_ERR_NO_WORKERS" } });
    worker = await startTestWorker(master, { name: "api-worker", threads: 2 });
  });

  it("rejects bad scenarios with every field path, and writes nothing", async () => {
    const before = await getJson<{ runs: unknown[] }>(`${master.url}/api/runs?limit=200`);
    const answer = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "",
        target: "localhost",
        load: { executor: "constant-vus", vus: -1, duration: "soon" },
        requests: [],
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("VOL_ERR_VALIDATION");
    expect(answer.body.details?.map((d) => d.path).sort()).toEqual([
      "load.duration",
      "load.vus",
      "name",
      "requests",
      "target",
    ]);
    expect((await sendJson("POST", `${master.url}/api/runs`, {})).body.details?.[0]).toMatchObject({
      path: "scenario",
    });
    expect(
      (await sendJson("POST", `${master.url}/api/runs`, { scenario: quick("x"), extra: 1 })).status,
    ).toBe(400);
    const after = await getJson<{ runs: unknown[] }>(`${master.url}/api/runs?limit=200`);
    expect(after.runs.length).toBe(before.runs.length);
  });

  it("answers malformed JSON with 400 and an oversized body with 413", async () => {
    const bad = await fetch(`${master.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "VOL_ERR_VALIDATION" });
    const huge = await fetch(`${master.url}/api/workers/local`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ count: 1, pad: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({
      code: "VOL_ERR_PAYLOAD_TOO_LARGE",
      error: "request body is larger than 1048576 bytes",
    });
    // A run's body has room for its feeder files (50 MB), not more.
    const run = await fetch(`${master.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scenario: {}, files: { "a.csv": "x".repeat(52 * 1024 * 1024) } }),
    });
    expect(run.status).toBe(413);
    expect(await run.json()).toMatchObject({
      code: "VOL_ERR_PAYLOAD_TOO_LARGE",
      error: `request body is larger than ${50 * 1024 * 1024 + 1024 * 1024} bytes`,
    });
  });

  it("404s name what is missing", async () => {
    expect((await sendJson("GET", `${master.url}/api/runs/nope`)).body).toMatchObject({
      code: "VOL_ERR_NOT_FOUND",
      error: "no run nope",
    });
    expect((await sendJson("GET", `${master.url}/api/runs/nope/timeseries`)).status).toBe(404);
    expect((await sendJson("POST", `${master.url}/api/runs/nope/stop`)).status).toBe(404);
    expect((await sendJson("DELETE", `${master.url}/api/workers/nope`)).status).toBe(404);
    expect((await sendJson("GET", `${master.url}/api/nothing-here`)).body.code).toBe("VOL_ERR_NOT_FOUND");
  });

  it("runs a scenario to a report that matches the target, with reports in three formats", async () => {
    target.reset();
    const run = await runToEnd(quick("reports", { thresholds: { p95: "<5s", "errorRate[missing]": "<1%" } }));
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(20);
    expect(target.total()).toBe(20);
    expect(run.summary.requests.map((r) => [r.name, r.requests, r.failures])).toEqual([
      ["hello", 10, 0],
      ["missing", 10, 0],
    ]);
    expect(run.summary.statusCodes).toEqual({ "200": 10, "404": 10 });
    expect(run.passed).toBe(true);
    expect(run.thresholds).toHaveLength(2);
    const json = await getJson<RunDetail>(`${master.url}/api/runs/${run.id}/report.json`);
    expect(json).toEqual(run);
    const csv = await (await fetch(`${master.url}/api/runs/${run.id}/report.csv`)).text();
    expect(csv.split("\n")[0]).toMatch(/^name,method,requests,failures/);
    expect(csv).toContain("hello,GET,10,0");
    expect(csv).toContain("Total,,20,0");
    // The HTML report opens as a page; download=1 saves it; JSON and CSV are files.
    const html = await fetch(`${master.url}/api/runs/${run.id}/report.html`);
    expect(html.headers.get("content-disposition")).toMatch(/^inline; filename=".*\.html"$/);
    const saved = await fetch(`${master.url}/api/runs/${run.id}/report.html?download=1`);
    expect(saved.headers.get("content-disposition")).toMatch(/^attachment; filename=".*\.html"$/);
    const csvHead = await fetch(`${master.url}/api/runs/${run.id}/report.csv`);
    expect(csvHead.headers.get("content-disposition")).toMatch(/^attachment;/);
    const badQuery = await sendJson("GET", `${master.url}/api/runs/${run.id}/report.html?download=yes`);
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.details).toEqual([
      { path: "download", message: "write download=1 to save the report as a file (or 0)" },
    ]);
    const page = await html.text();
    expect(page).toContain("<svg");
    expect(page).not.toMatch(/<script|<link/);
    expect((await sendJson("GET", `${master.url}/api/runs/${run.id}/report.pdf`)).status).toBe(404);
    const series = await getJson<{ overall: Array<{ rps: number }>; requests: Record<string, unknown[]> }>(
      `${master.url}/api/runs/${run.id}/timeseries`,
    );
    expect(series.overall.reduce((s, p) => s + p.rps, 0)).toBe(20);
    expect(Object.keys(series.requests).sort()).toEqual(["hello", "missing"]);
  });

  it("one run at a time; stop is graceful and the run ends aborted with nothing lost", async () => {
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        ...quick("long"),
        load: { executor: "constant-vus", vus: 4, duration: "1m" },
        thinkTime: "5ms",
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await sendJson("POST", `${master.url}/api/runs`, { scenario: quick("second") })).body.code).toBe(
      "VOL_ERR_RUN_ACTIVE",
    );
    // The worker in the run (the list also keeps workers lost or retired by earlier tests).
    const busy = master.services.registry.list().find((w) => w.runId === id);
    expect(busy).toBeDefined();
    expect((await sendJson("DELETE", `${master.url}/api/workers/${busy?.id}`)).body.code).toBe(
      "VOL_ERR_WORKER_BUSY",
    );
    await waitFor(
      async () => (await getJson<RunDetail>(`${master.url}/api/runs/${id}`)).summary.total.requests > 50,
      {
        what: "requests to be merged",
      },
    );
    expect((await sendJson("POST", `${master.url}/api/runs/${id}/stop`)).status).toBe(202);
    const run = await waitForRunEnd(master.url, id);
    expect(run.status).toBe("aborted");
    expect(run.stopReason).toBe("user");
    expect(run.summary.total.requests).toBe(target.total());
    expect((await sendJson("POST", `${master.url}/api/runs/${id}/stop`)).body.code).toBe(
      "VOL_ERR_RUN_NOT_ACTIVE",
    );
  });

  it("queues runs behind the active one, starts them in order and cancels one on request", async () => {
    target.reset();
    const holder = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        ...quick("holder"),
        load: { executor: "constant-vus", vus: 1, duration: "3s" },
        thinkTime: "20ms",
      },
    });
    expect(holder.status).toBe(201);
    const queue = (name: string) =>
      sendJson("POST", `${master.url}/api/runs`, { scenario: quick(name), queue: true });
    const first = await queue("queued-first");
    const second = await queue("queued-second");
    expect([first.status, first.body.status, second.body.status]).toEqual([201, "queued", "queued"]);
    // Without "queue", a run does not jump the line: 409, saying what is in progress and how to wait.
    const jumper = await sendJson("POST", `${master.url}/api/runs`, { scenario: quick("jumper") });
    expect(jumper.body.code).toBe("VOL_ERR_RUN_ACTIVE");
    expect(jumper.body.error).toContain('run "holder"');
    expect(jumper.body.error).toContain("queue this run behind it");
    expect(
      (await sendJson("POST", `${master.url}/api/runs`, { scenario: quick("bad"), queue: "yes" })).status,
    ).toBe(400);
    const waiting = await getJson<{ runs: Array<{ id: string }> }>(`${master.url}/api/runs?status=queued`);
    expect(waiting.runs.map((r) => r.id).sort()).toEqual([first.body.id, second.body.id].sort());

    const cancel = await sendJson("POST", `${master.url}/api/runs/${second.body.id}/stop`);
    expect(cancel).toMatchObject({ status: 202, body: { status: "aborted" } });
    const cancelled = await getJson<RunDetail>(`${master.url}/api/runs/${second.body.id}`);
    expect(cancelled).toMatchObject({ status: "aborted", stopReason: "cancelled", startedAt: null });

    const held = await waitForRunEnd(master.url, holder.body.id as string);
    const run = await waitForRunEnd(master.url, first.body.id as string);
    expect(run.status).toBe("finished");
    expect(Date.parse(run.startedAt as string)).toBeGreaterThanOrEqual(Date.parse(held.finishedAt as string));
    expect(run.summary.total.requests).toBe(20);
    expect(target.total()).toBe(held.summary.total.requests + 20);
    // The cancelled run never started.
    expect((await getJson<RunDetail>(`${master.url}/api/runs/${second.body.id}`)).status).toBe("aborted");
  });

  it("history pages newest first and filters by name and status", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) await runToEnd(quick(name));
    const first = await getJson<{ runs: Array<{ name: string; id: string }>; nextCursor: string }>(
      `${master.url}/api/runs?limit=2`,
    );
    expect(first.runs.map((r) => r.name)).toEqual(["page-c", "page-b"]);
    const second = await getJson<{ runs: Array<{ name: string }> }>(
      `${master.url}/api/runs?limit=2&cursor=${first.nextCursor}`,
    );
    expect(second.runs[0].name).toBe("page-a");
    const named = await getJson<{ runs: Array<{ name: string }> }>(`${master.url}/api/runs?name=page-b`);
    expect(named.runs.map((r) => r.name)).toEqual(["page-b"]);
    const aborted = await getJson<{ runs: Array<{ status: string; name: string }> }>(
      `${master.url}/api/runs?status=aborted`,
    );
    // The run stopped by the user, and the queued run cancelled before its turn.
    expect(aborted.runs.map((r) => `${r.name} ${r.status}`)).toEqual([
      "queued-second aborted",
      "long aborted",
    ]);
    expect((await sendJson("GET", `${master.url}/api/runs?limit=0`)).body.details?.[0].path).toBe("limit");
  });

  it("compares two runs with deltas", async () => {
    const { runs } = await getJson<{ runs: Array<{ id: string }> }>(`${master.url}/api/runs?limit=2`);
    const result = await getJson<{
      total: Record<string, { a: number; b: number; delta: number }>;
      requests: unknown[];
    }>(`${master.url}/api/compare?a=${runs[1].id}&b=${runs[0].id}`);
    expect(result.total.requests).toMatchObject({ a: 20, b: 20, delta: 0 });
    expect(result.requests).toHaveLength(2);
    expect((await sendJson("GET", `${master.url}/api/compare?a=${runs[0].id}`)).status).toBe(400);
    expect((await sendJson("GET", `${master.url}/api/compare?a=${runs[0].id}&b=nope`)).status).toBe(404);
  });

  it("trends: the last finished runs of a name, oldest first, with exact percentiles and a verdict", async () => {
    const trend = await getJson<
      Array<{ id: string; rps: number; p95: number; errorRate: number; verdict: string }>
    >(`${master.url}/api/trends?name=page-b&limit=5`);
    const { runs } = await getJson<{ runs: Array<{ id: string; name: string; status: string }> }>(
      `${master.url}/api/runs?name=page-b&status=finished`,
    );
    expect(trend.map((p) => p.id)).toEqual(runs.map((r) => r.id).reverse());
    for (const point of trend) {
      const detail = await getJson<RunDetail>(`${master.url}/api/runs/${point.id}`);
      expect(point).toMatchObject({
        rps: detail.summary.total.rps,
        p95: detail.summary.total.latencyMs.p95,
        errorRate: detail.summary.total.failures / detail.summary.total.requests,
        verdict: detail.trust.verdict,
      });
    }
    // One run per name is the pinned baseline.
    await runToEnd(quick("page-b"));
    const [first, second] = await getJson<Array<{ id: string }>>(`${master.url}/api/trends?name=page-b`);
    expect(await sendJson("POST", `${master.url}/api/runs/${first.id}/pin`)).toMatchObject({
      status: 200,
      body: { id: first.id, pinned: true },
    });
    await sendJson("POST", `${master.url}/api/runs/${second.id}/pin`);
    const pinned = await getJson<Array<{ id: string; pinned: boolean }>>(
      `${master.url}/api/trends?name=page-b`,
    );
    expect(pinned.filter((p) => p.pinned).map((p) => p.id)).toEqual([second.id]);
    const aborted = await getJson<{ runs: Array<{ id: string }> }>(`${master.url}/api/runs?name=long`);
    expect((await sendJson("POST", `${master.url}/api/runs/${aborted.runs[0].id}/pin`)).body.code).toBe(
      "VOL_ERR_NOT_FINISHED",
    );
    expect((await sendJson("POST", `${master.url}/api/runs/nope/pin`)).status).toBe(404);
    // "page" names other runs too: only the exact name counts.
    expect(await getJson(`${master.url}/api/trends?name=page`)).toEqual([]);
    expect((await sendJson("GET", `${master.url}/api/trends`)).body.details?.[0].path).toBe("name");
    expect((await sendJson("GET", `${master.url}/api/trends?name=x&limit=1000`)).status).toBe(400);
  });

  it("serves OpenAPI and Prometheus metrics", async () => {
    const openapi = await getJson<{ paths: Record<string, unknown> }>(`${master.url}/api/openapi.json`);
    for (const path of [
      "/api/health",
      "/api/workers",
      "/api/runs",
      "/api/runs/{id}",
      "/api/runs/{id}/stop",
      "/api/runs/{id}/load",
      "/api/runs/{id}/rebalance",
      "/api/compare",
      "/api/trends",
      "/api/runs/{id}/scripts",
      "/api/runs/{id}/distribution",
      "/api/runs/{id}/heatmap",
      "/api/session",
      "/api/users",
      "/api/users/{name}",
      "/api/tokens",
      "/api/tokens/{id}",
      "/api/audit",
      "/api/worker-tokens",
      "/api/schedules",
      "/api/schedules/{id}",
    ]) {
      expect(openapi.paths).toHaveProperty([path]);
    }
    const metrics = await (await fetch(`${master.url}/metrics`)).text();
    expect(metrics).toMatch(/volley_workers\{state="ready"\} 1/);
    expect(metrics).toMatch(/volley_batches_merged_total [1-9]\d*/);
    expect(metrics).toContain("volley_queue_depth");
  });
});

describe("live feed", () => {
  it("pushes each merged second within about a second of its end", async () => {
    const socket = new WebSocket(`${master.url.replace("http", "ws")}/ws/live`);
    const seconds: Array<{ t: number; at: number; rps: number; runId: string }> = [];
    let first: Record<string, unknown> | null = null;
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString());
      if (!first) first = message;
      if (message.type === "run-second")
        seconds.push({ t: message.point.t, at: Date.now(), rps: message.point.rps, runId: message.runId });
    });
    await waitFor(() => first, { what: "the first live message" });
    expect(first).toMatchObject({ type: "state" });
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        ...quick("live"),
        load: { executor: "constant-vus", vus: 2, duration: "3s" },
        thinkTime: "10ms",
      },
    });
    const id = created.body.id as string;
    const run = await waitForRunEnd(master.url, id);
    socket.close();
    const startAt = Date.parse(run.startedAt ?? "");
    const mine = seconds.filter((s) => s.runId === id);
    expect(mine.map((s) => s.t)).toEqual(mine.map((_, i) => i));
    for (const second of mine.slice(0, -1)) {
      const delay = second.at - (startAt + (second.t + 1) * 1000);
      expect(delay, `second ${second.t}`).toBeLessThan(1200);
    }
    expect(mine.reduce((sum, s) => sum + s.rps, 0)).toBe(run.summary.total.requests);
  });
});
