import type { RunningMaster } from "@volley/master";
import type { LoadChangeRecord, RunDetail, Timeseries } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// A worker that connects while a run goes is given a share of it: 1 → 2 workers, counts exact.
let master: RunningMaster;
let target: TargetServer;
const workers: WorkerNode[] = [];

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ startDelayMs: 1500 });
  workers.push(await startTestWorker(master, { name: "first" }));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.shutdown(3000)));
  await master?.close();
  await target?.close();
});

async function startRun(
  scenario: Record<string, unknown>,
  scripts?: Record<string, string>,
): Promise<string> {
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: { target: target.url, requests: [{ name: "hello", path: "/hello" }], ...scenario },
    ...(scripts ? { scripts } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function waitForSecond(runId: string, second: number): Promise<void> {
  await waitFor(
    async () =>
      (await getJson<Timeseries>(`${master.url}/api/runs/${runId}/timeseries`)).overall.some(
        (p) => p.t >= second,
      ),
    { what: `second ${second}`, timeoutMs: 15_000, intervalMs: 100 },
  );
}

const rebalance = (runId: string) => sendJson("POST", `${master.url}/api/runs/${runId}/rebalance`);

describe("rebalance: workers that join a running run", () => {
  it("an arrival rate: the new worker takes half of the iterations after the moment, none twice", async () => {
    const before = target.total();
    const runId = await startRun({
      name: "rebalance-rate",
      load: { executor: "constant-arrival-rate", rate: 40, duration: "7s", maxVus: 20 },
    });
    await waitForSecond(runId, 1);
    const none = await rebalance(runId);
    expect(none.status).toBe(409);
    expect(none.body.code).toBe("VOL_ERR_NO_WORKERS");
    workers.push(await startTestWorker(master, { name: "second" }));
    const answer = await rebalance(runId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const record = (answer.body.loadChanges as LoadChangeRecord[]).at(-1) as LoadChangeRecord;
    expect(record.workers).toBe(2);
    const run = await waitForRunEnd<RunDetail>(master.url, runId, 30_000);
    expect(run.status).toBe("finished");
    expect(run.loadChanges).toEqual([record]);
    const { requests, dropped } = run.summary.total;
    // One schedule: 40/s for 7 s, whoever sends them.
    expect(Math.abs(requests + dropped - 280)).toBeLessThanOrEqual(2);
    expect(requests).toBe(target.total() - before);
    const second = run.workers.find((w) => w.name === "second");
    const first = run.workers.find((w) => w.name === "first");
    expect(second?.status).toBe("finished");
    // The new worker's half of the iterations after the moment (40/s over 7 - at seconds); a
    // joiner whose threads start late on a loaded machine drops its catch-up burst (counted above).
    const after = 40 * (7 - record.at);
    expect(Math.abs((second?.requests ?? 0) - after / 2)).toBeLessThanOrEqual(
      Math.max(4, 0.15 * (after / 2)),
    );
    expect((first?.requests ?? 0) + (second?.requests ?? 0)).toBe(requests);
  });

  it("VUs: 4 on two workers become 2, 1 and 1 when a third joins; the run's VUs stay 4", async () => {
    // Both workers are ready now: a run on them both, then a third joins.
    const runId = await startRun({
      name: "rebalance-vus",
      load: { executor: "constant-vus", vus: 4, duration: "6s" },
      thinkTime: "50ms",
    });
    await waitForSecond(runId, 1);
    workers.push(await startTestWorker(master, { name: "third" }));
    const answer = await rebalance(runId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { at } = (answer.body.loadChanges as LoadChangeRecord[])[0];
    const run = await waitForRunEnd<RunDetail>(master.url, runId, 30_000);
    expect(run.status).toBe("finished");
    const third = run.workers.find((w) => w.name === "third");
    expect(third?.requests).toBeGreaterThan(0);
    expect(third?.vus).toBe(1);
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${runId}/timeseries`);
    for (const point of series.overall.filter((p) => p.t >= Math.ceil(at) + 1 && p.t < 5)) {
      expect(point.vus, `second ${point.t}`).toBe(4);
    }
    expect(run.summary.total.requests).toBe(run.workers.reduce((sum, w) => sum + w.requests, 0));
  });

  it("refuses per-vu-iterations, naming the field", async () => {
    const runId = await startRun({
      name: "rebalance-fixed",
      load: { executor: "per-vu-iterations", vus: 2, iterations: 200 },
      thinkTime: "20ms",
    });
    const refused = await rebalance(runId);
    expect(refused.status).toBe(400);
    expect(refused.body.details?.[0]).toMatchObject({
      path: "load.executor",
      message: expect.stringContaining("per-vu-iterations cannot be rebalanced"),
    });
    await sendJson("POST", `${master.url}/api/runs/${runId}/stop`);
    await waitForRunEnd(master.url, runId, 30_000);
    expect((await rebalance(runId)).status).toBe(409);
  });

  it("a unique feeder: the others give up unused rows to the joiner; every row sent exactly once", async () => {
    target.reset();
    const rows = 400;
    // Every worker keeps VUs after the joiner (2 threads) comes: 5 VUs over weights 1, 1, 1, 2.
    const runId = await startRun({
      name: "rebalance-unique",
      data: {
        users: {
          rows: Array.from({ length: rows }, (_, i) => ({ u: `user${i}` })),
          mode: "unique",
          onExhausted: "stop",
        },
      },
      load: { executor: "constant-vus", vus: 5, duration: "30s" },
      thinkTime: "100ms",
      requests: [{ name: "hello", path: "/echo?u={{data.users.u}}" }],
    });
    await waitForSecond(runId, 1);
    workers.push(await startTestWorker(master, { name: "fourth", threads: 2 }));
    const answer = await rebalance(runId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const record = (answer.body.loadChanges as LoadChangeRecord[]).at(-1) as LoadChangeRecord;
    expect(record.workers).toBe(4);
    const granted = record.rows?.users ?? 0;
    // The joiner's threads are 2 of 5: it was given about 40 % of the rows not used yet.
    expect(granted).toBeGreaterThan(40);
    expect(granted).toBeLessThan(rows * 0.4);
    const run = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
    expect(run.status).toBe("finished");
    const seen = target.log.map((e) => new URL(e.url, "http://x").searchParams.get("u"));
    expect(seen).toHaveLength(rows);
    expect(new Set(seen).size).toBe(rows);
    expect(run.summary.total.requests).toBe(rows);
    // Every row was used (each worker kept VUs), then the run ended well before its 30 s.
    expect(run.summary.durationS).toBeLessThan(25);
    const fourth = run.workers.find((w) => w.name === "fourth");
    expect(fourth?.requests).toBe(granted);
  });

  it("scripted VUs: vu.data.users.next() takes the handed-over rows too, none twice", async () => {
    target.reset();
    const runId = await startRun(
      {
        name: "rebalance-scripted",
        data: {
          users: {
            rows: Array.from({ length: 400 }, (_, i) => ({ u: `s${i}` })),
            mode: "unique",
            onExhausted: "stop",
          },
        },
        load: { executor: "constant-vus", vus: 5, duration: "5s" },
        requests: undefined,
        script: "rows.ts",
      },
      {
        "rows.ts": `export default async function (vu) {
          const row = vu.data.users.next();
          await vu.http.get("/s/" + row.u, { name: "s" });
          await vu.sleep(100);
        }`,
      },
    );
    await waitForSecond(runId, 1);
    workers.push(await startTestWorker(master, { name: "fifth" }));
    const answer = await rebalance(runId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const granted = (answer.body.loadChanges as LoadChangeRecord[]).at(-1)?.rows?.users ?? 0;
    expect(granted).toBeGreaterThan(0);
    const run = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
    const paths = [...target.counts.keys()].filter((path) => path.startsWith("/s/"));
    expect(paths.every((path) => target.counts.get(path) === 1)).toBe(true);
    expect(paths.length).toBe(run.summary.total.requests);
    const fifth = run.workers.find((w) => w.name === "fifth");
    expect(fifth?.requests).toBeGreaterThan(0);
    expect(fifth?.requests).toBeLessThanOrEqual(granted);
  });
});
