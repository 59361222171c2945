import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunDetail, RunSummary, Timeseries } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// Exact summaries of any window of a run, across two workers, checked against a run whose target
// stalls for a known time in its middle.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, threads: 1, master: { startDelayMs: 300, keepSecondsDays: 1 } });
});
afterAll(() => fleet.close());

describe("GET /api/runs/:id/summary?from=&to=", () => {
  it("gives the exact summary of any seconds: the stall shows in its window only", async () => {
    const { master, target } = fleet;
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "windows",
        target: target.url,
        load: { executor: "constant-vus", vus: 4, duration: "6s" },
        thinkTime: "20ms",
        requests: [{ name: "hello", path: "/hello" }],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // Stall the target for 700 ms once the run is 3 s in.
    const detail = await waitFor(
      async () => {
        const run = await getJson<RunDetail>(`${master.url}/api/runs/${id}`);
        return run.startedAt && Date.now() - Date.parse(run.startedAt) > 3000 ? run : null;
      },
      { what: "the run to be 3 s in" },
    );
    const stallAt = Date.now();
    target.stallUntil = stallAt + 700;
    const run = await waitForRunEnd<RunDetail>(master.url, id, 30_000);
    const stallSecond = Math.floor((stallAt - Date.parse(detail.startedAt as string)) / 1000);

    const window = (from: number, to: number) =>
      getJson<RunSummary>(`${master.url}/api/runs/${id}/summary?from=${from}&to=${to}`);
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${id}/timeseries`);
    const seconds = series.overall.length;
    // The whole run as one window is the run's own summary, percentiles and all.
    const whole = await window(0, seconds);
    expect(whole.total.requests).toBe(run.summary.total.requests);
    expect(whole.total.latencyMs).toEqual(run.summary.total.latencyMs);
    expect(whole.requests.map((r) => [r.name, r.requests])).toEqual(
      run.summary.requests.map((r) => [r.name, r.requests]),
    );
    // A window counts exactly its seconds' requests.
    const early = await window(0, 2);
    expect(early.total.requests).toBe(series.overall[0].rps + series.overall[1].rps);
    expect(early.durationS).toBe(2);
    // The stall is in its window's tail, not in the window before it.
    const stalled = await window(stallSecond, stallSecond + 2);
    expect(stalled.total.latencyMs.max).toBeGreaterThanOrEqual(500);
    expect(early.total.latencyMs.p99).toBeLessThan(300);
    // Bad windows: 400 naming the field; unknown run: 404.
    expect(
      (await sendJson("GET", `${master.url}/api/runs/${id}/summary?from=3&to=3`)).body.details?.[0].path,
    ).toBe("to");
    expect((await sendJson("GET", `${master.url}/api/runs/${id}/summary?from=-1&to=3`)).status).toBe(400);
    expect((await sendJson("GET", `${master.url}/api/runs/nope/summary?from=0&to=3`)).status).toBe(404);
  });
});

describe("retention of per-second statistics", () => {
  it("drops them for runs that ended longer ago than keepSecondsDays; the report stays", async () => {
    const { master } = fleet;
    const { runs } = await getJson<{ runs: Array<{ id: string; name: string }> }>(
      `${master.url}/api/runs?name=windows`,
    );
    const id = runs[0].id;
    const before = await getJson<RunSummary>(`${master.url}/api/runs/${id}/summary?from=0&to=3`);
    expect(before.total.requests).toBeGreaterThan(0);
    // A fresh sweep leaves a run that ended just now alone.
    expect(await master.services.retention.sweep()).toBe(0);
    await master.services.db.runs.update(id, { finishedAt: new Date(Date.now() - 2 * 86_400_000) });
    expect(await master.services.retention.sweep()).toBeGreaterThan(0);
    const gone = await sendJson("GET", `${master.url}/api/runs/${id}/summary?from=0&to=3`);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: "VOL_ERR_EXPIRED" });
    expect(gone.body.error).toContain("more than 1 days ago");
    const report = await getJson<RunDetail>(`${master.url}/api/runs/${id}`);
    expect(report.summary.total.requests).toBeGreaterThan(0);
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${id}/timeseries`);
    expect(series.overall.length).toBeGreaterThan(0);
  });
});

describe("GET /metrics during a run", () => {
  it("exposes the running run: requests by status, failures, quantiles of the last 10 s, VUs", async () => {
    const { master, target } = fleet;
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "scraped",
        target: target.url,
        load: { executor: "constant-vus", vus: 3, duration: "5s" },
        thinkTime: "10ms",
        requests: [
          { name: "hello", path: "/hello" },
          { name: "missing", path: "/status/404" },
        ],
      },
    });
    const id = created.body.id as string;
    const scrape = async () => (await fetch(`${master.url}/metrics`)).text();
    const line = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    const during = await waitFor(
      async () => {
        const text = await scrape();
        return line(
          text,
          new RegExp(
            `volley_requests_total\\{run="${id}",scenario="",request="hello",status="200"\\} (\\d+)`,
          ),
        ) > 0
          ? text
          : null;
      },
      { what: "the running run in /metrics", timeoutMs: 10_000 },
    );
    const hello = line(
      during,
      new RegExp(`volley_requests_total\\{run="${id}",scenario="",request="hello",status="200"\\} (\\d+)`),
    );
    const missing = line(
      during,
      new RegExp(`volley_requests_total\\{run="${id}",scenario="",request="missing",status="404"\\} (\\d+)`),
    );
    const failures = line(
      during,
      new RegExp(`volley_request_failures_total\\{run="${id}",scenario="",request="missing"\\} (\\d+)`),
    );
    expect(missing).toBeGreaterThan(0);
    expect(failures).toBe(missing);
    // What was scraped is at most what the target has seen by now.
    expect(hello + missing).toBeLessThanOrEqual(target.total());
    const p95 = line(
      during,
      new RegExp(
        `volley_request_duration_seconds\\{run="${id}",scenario="",request="hello",quantile="0.95"\\} ([\\d.e-]+)`,
      ),
    );
    expect(p95).toBeGreaterThan(0);
    expect(p95).toBeLessThan(1);
    expect(line(during, new RegExp(`volley_vus\\{run="${id}"\\} (\\d+)`))).toBe(3);
    // Every metric the Grafana dashboard charts is in the exposition.
    const dashboard = readFileSync(join(ROOT, "docker/grafana/volley-dashboard.json"), "utf8");
    const charted = new Set([...dashboard.matchAll(/volley_[a-z_]+/g)].map((m) => m[0]));
    expect(charted.size).toBeGreaterThan(5);
    for (const metric of charted) expect(during, metric).toContain(`# TYPE ${metric} `);
    await waitForRunEnd(master.url, id, 30_000);
    // Once the run is over, its series leave the exposition.
    expect(await scrape()).not.toContain(`run="${id}"`);
  });
});
