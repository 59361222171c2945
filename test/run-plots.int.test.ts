import type { RunningMaster } from "@volley/master";
import type { LatencyDistribution, LatencyHeatmap, RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitForRunEnd } from "./support/processes.js";

// A finished run's plots as the API gives them: latency by percentile and the seconds' heatmap,
// both from the merged histograms, checked against the run's own summary.
let fleet: TestFleet;
let master: RunningMaster;

beforeAll(async () => {
  fleet = await startTestFleet();
  master = fleet.master;
});
afterAll(() => fleet.close());

describe("run plots", () => {
  it("the latency distribution and heatmap agree with the summary, every request counted once", async () => {
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "plots",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        requests: [
          { name: "hello", path: "/hello" },
          { name: "missing", path: "/status/404", expect: { status: 404 } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string);
    expect(run.summary.total.requests).toBe(fleet.target.total());
    // Latency by percentile, from the merged histograms: rising, its 50 % the summary's p50, its end the max.
    const distribution = await getJson<LatencyDistribution>(`${master.url}/api/runs/${run.id}/distribution`);
    expect(Object.keys(distribution.requests).sort()).toEqual(["hello", "missing"]);
    const total = distribution.total;
    expect(total.map((point) => point.p).slice(0, 3)).toEqual([
      0,
      expect.closeTo(36.9, 1),
      expect.closeTo(60.2, 1),
    ]);
    expect(total.at(-1)).toEqual({ p: 100, ms: run.summary.total.latencyMs.max });
    expect(total.every((point, i) => i === 0 || point.ms >= total[i - 1].ms)).toBe(true);
    const hello = run.summary.requests.find((r) => r.name === "hello");
    expect(distribution.requests.hello.at(-1)?.ms).toBe(hello?.latencyMs.max);
    expect((await sendJson("GET", `${master.url}/api/runs/nope/distribution`)).status).toBe(404);
    // The heatmap counts every request once, in its second and latency bucket.
    const heatmap = await getJson<LatencyHeatmap>(`${master.url}/api/runs/${run.id}/heatmap`);
    expect(heatmap.edgesMs).toHaveLength(41);
    expect(heatmap.counts.every((row) => row.length === 40)).toBe(true);
    expect(heatmap.counts.flat().reduce((n, c) => n + c, 0)).toBe(run.summary.total.requests);
    expect(heatmap.edgesMs[0]).toBeLessThanOrEqual(run.summary.total.latencyMs.min);
    expect(heatmap.edgesMs.at(-1)).toBeGreaterThanOrEqual(run.summary.total.latencyMs.max * 0.99);
    expect((await sendJson("GET", `${master.url}/api/runs/nope/heatmap`)).status).toBe(404);
    // Read from one stored row a second (the whole run's merged statistics), which counts what
    // every request name's rows of the second count (runs stored before those rows read these).
    const { seconds } = master.services.db;
    const ofRun = await seconds.statsBySecond(run.id, "run");
    expect(ofRun.map((row) => row.second)).toEqual(heatmap.seconds);
    const ofNames = await seconds.statsBySecond(run.id, "names");
    expect(new Set(ofNames.map((row) => row.second))).toEqual(new Set(heatmap.seconds));
    // An exact window still reads the names' rows only: its summary is the run's, not twice it.
    const window = await getJson<RunDetail["summary"]>(
      `${master.url}/api/runs/${run.id}/summary?from=0&to=999`,
    );
    expect(window.total.requests).toBe(run.summary.total.requests);
  });
});
