import type { RunDetail, RunSummary, Timeseries } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// Exact summaries of any window of a run, across two workers, checked against a run whose target
// stalls for a known time in its middle.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, threads: 1, master: { startDelayMs: 300 } });
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
