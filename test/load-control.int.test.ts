import type { LoadChangeRecord, RunDetail, Timeseries } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// PATCH /api/runs/:id/load against a running run on two workers: VUs and rates change within a
// second, in the time series and at the target, exactly split, and kept in the run.
let fleet: TestFleet;
beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2 });
});
afterAll(() => fleet?.close());

async function startRun(scenario: Record<string, unknown>): Promise<string> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: { target: fleet.target.url, requests: [{ name: "hello", path: "/hello" }], ...scenario },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function waitForSecond(runId: string, second: number): Promise<void> {
  await waitFor(
    async () => {
      const series = await getJson<Timeseries>(`${fleet.master.url}/api/runs/${runId}/timeseries`);
      return series.overall.some((p) => p.t >= second);
    },
    { what: `second ${second} of the run`, timeoutMs: 15_000, intervalMs: 100 },
  );
}

const patchLoad = (runId: string, body: unknown) =>
  sendJson("PATCH", `${fleet.master.url}/api/runs/${runId}/load`, body);

describe("load control while running", () => {
  it("raises a constant-vus run's VUs: the series and the target's rate follow within a second", async () => {
    const runId = await startRun({
      name: "vus-change",
      load: { executor: "constant-vus", vus: 2, maxVus: 8, duration: "6s" },
      thinkTime: "50ms",
    });
    await waitForSecond(runId, 1);
    // Wrong knob, too many VUs, both knobs, an unknown scenario: 400 naming the field.
    const wrongKnob = await patchLoad(runId, { rate: 10 });
    expect(wrongKnob.status).toBe(400);
    expect(wrongKnob.body.details).toEqual([
      { path: "rate", message: "constant-vus takes vus (VUs), not rate" },
    ]);
    const tooMany = await patchLoad(runId, { vus: 9 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details?.[0]).toMatchObject({
      path: "vus",
      message: expect.stringContaining("at most 8"),
    });
    expect((await patchLoad(runId, { vus: 3, rate: 3 })).status).toBe(400);
    expect((await patchLoad(runId, { vus: "many" })).status).toBe(400);
    const noScenario = await patchLoad(runId, { vus: 3, scenario: "browse" });
    expect(noScenario.status).toBe(400);
    expect(noScenario.body.details?.[0].path).toBe("scenario");

    const changed = await patchLoad(runId, { vus: 8 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const [record] = changed.body.loadChanges as LoadChangeRecord[];
    expect(record).toMatchObject({ vus: 8 });
    const { at } = record;
    const run = await waitForRunEnd<RunDetail>(fleet.master.url, runId, 30_000);
    expect(run.status).toBe("finished");
    expect(run.loadChanges).toEqual([record]);
    // Both workers took part: 8 VUs are 4 on each.
    expect(run.workers.map((w) => w.vus).sort()).toEqual([4, 4]);
    const series = await getJson<Timeseries>(`${fleet.master.url}/api/runs/${runId}/timeseries`);
    const vusAt = (t: number) => series.overall.find((p) => p.t === t)?.vus;
    expect(vusAt(Math.floor(at) - 1)).toBe(2);
    // 8 in the second after the change, or the one after that: the change reaches each worker only
    // 200 ms ahead of its moment, and a loaded machine can deliver it later than that.
    expect([vusAt(Math.ceil(at) + 1), vusAt(Math.ceil(at) + 2)]).toContain(8);
    // At the target: the request rate after the change is well above the one before.
    const started = Date.parse(run.startedAt as string);
    const rateBetween = (from: number, to: number) =>
      fleet.target.log.filter((e) => e.at >= started + from * 1000 && e.at < started + to * 1000).length /
      (to - from);
    expect(rateBetween(at + 1.5, at + 3)).toBeGreaterThan(2.5 * rateBetween(at - 1.5, at));
    expect(run.summary.total.requests).toBe(fleet.target.total());

    // An ended run's load cannot change.
    const ended = await patchLoad(runId, { vus: 2 });
    expect(ended.status).toBe(409);
    expect(ended.body.code).toBe("VOL_ERR_RUN_NOT_ACTIVE");
  });

  it("raises a run without maxVus up to 4x its plan (VUs made only then), and no further", async () => {
    const before = fleet.target.total();
    const runId = await startRun({
      name: "vus-headroom",
      load: { executor: "constant-vus", vus: 2, duration: "5s" },
      thinkTime: "50ms",
    });
    await waitForSecond(runId, 1);
    const vusOf = (run: RunDetail) => run.workers.reduce((n, w) => n + w.vus, 0);
    // The workers' VUs read the plan until it is raised, then what they ran.
    expect(vusOf(await getJson<RunDetail>(`${fleet.master.url}/api/runs/${runId}`))).toBe(2);
    const tooMany = await patchLoad(runId, { vus: 9 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details).toEqual([
      {
        path: "vus",
        message:
          "at most 8 (4x the planned peak of 2, up to 100,000; set load.maxVus in the scenario to allow more)",
      },
    ]);
    const changed = await patchLoad(runId, { vus: 8 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const run = await waitForRunEnd<RunDetail>(fleet.master.url, runId, 30_000);
    const series = await getJson<Timeseries>(`${fleet.master.url}/api/runs/${runId}/timeseries`);
    expect(Math.max(...series.overall.map((p) => p.vus ?? 0))).toBe(8);
    expect(vusOf(run)).toBe(8);
    expect(run.summary.total.requests).toBe(fleet.target.total() - before);
  });

  it("changes an arrival rate: the iterations are the old rate before and the new one after, exactly", async () => {
    const before = fleet.target.total();
    const runId = await startRun({
      name: "rate-change",
      load: { executor: "constant-arrival-rate", rate: 20, duration: "5s", maxVus: 20 },
    });
    await waitForSecond(runId, 0);
    const wrongKnob = await patchLoad(runId, { vus: 5 });
    expect(wrongKnob.body.details).toEqual([
      { path: "vus", message: "constant-arrival-rate takes rate (iterations per second), not vus" },
    ]);
    const changed = await patchLoad(runId, { rate: 100 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const atMs = (changed.body.loadChanges as LoadChangeRecord[])[0].at * 1000;
    const run = await waitForRunEnd<RunDetail>(fleet.master.url, runId, 30_000);
    expect(run.status).toBe("finished");
    // One schedule across both workers: 20/s until the change, 100/s after (at is rounded to 0.1 s).
    // Each scheduled iteration was sent or, with every VU busy, dropped and counted.
    const { requests, dropped } = run.summary.total;
    const expected = (20 * atMs) / 1000 + (100 * (5000 - atMs)) / 1000;
    expect(Math.abs(requests + dropped - expected)).toBeLessThanOrEqual(6);
    expect(run.summary.total.requests).toBe(fleet.target.total() - before);
    const series = await getJson<Timeseries>(`${fleet.master.url}/api/runs/${runId}/timeseries`);
    const last = series.overall.find((p) => p.t === 4);
    expect(last?.rps).toBeGreaterThanOrEqual(90);
    expect(run.workers.every((w) => w.requests > (requests / 2) * 0.9)).toBe(true);
  });

  it("in a run of several scenarios, changes the one named and leaves the other as planned", async () => {
    const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "mix-change",
        target: fleet.target.url,
        scenarios: {
          steady: {
            load: { executor: "constant-arrival-rate", rate: 10, duration: "5s", maxVus: 10 },
            requests: [{ name: "steady", path: "/steady" }],
          },
          burst: {
            load: { executor: "constant-arrival-rate", rate: 10, duration: "5s", maxVus: 20 },
            requests: [{ name: "burst", path: "/burst" }],
          },
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id as string;
    await waitForSecond(runId, 0);
    const unnamed = await patchLoad(runId, { rate: 40 });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.details?.[0]).toMatchObject({
      path: "scenario",
      message: "this run has several scenarios (steady, burst): name one",
    });
    const changed = await patchLoad(runId, { rate: 40, scenario: "burst" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const [record] = changed.body.loadChanges as LoadChangeRecord[];
    expect(record).toMatchObject({ rate: 40, scenario: "burst" });
    const run = await waitForRunEnd<RunDetail>(fleet.master.url, runId, 30_000);
    const byName = Object.fromEntries(run.summary.requests.map((r) => [r.name, r.requests + 0]));
    // steady: 10/s for 5 s as planned; burst: 10/s until the change, 40/s after (plus drops, if any).
    expect(byName.steady + run.summary.total.dropped).toBeGreaterThanOrEqual(48);
    expect(byName.steady).toBeLessThanOrEqual(50);
    const burstPlanned = 10 * record.at + 40 * (5 - record.at);
    expect(byName.burst).toBeLessThanOrEqual(Math.ceil(burstPlanned) + 2);
    expect(byName.burst + run.summary.total.dropped).toBeGreaterThanOrEqual(Math.floor(burstPlanned) - 2);
  });
});
