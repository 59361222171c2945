import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningMaster } from "@volley/master";
import type { RunDetail, RunPage, ScheduleView } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// Schedules: a saved test fires on its cron expression (croner), on time, as a queued run that
// waits for busy workers; a scheduled run worse than its baseline fires `run.regressed`.
let master: RunningMaster;
let worker: WorkerNode;
let target: Server;
let targetUrl: string;
let delayMs = 0;
const served = new Map<string, number>();
let hooks: Server;
const events: Array<{
  event: string;
  run: { id: string; name: string };
  regressions?: Array<{ metric: string }>;
}> = [];

beforeAll(async () => {
  // A target whose answers take `delayMs`: the test slows it down to make a regression.
  target = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    served.set(path, (served.get(path) ?? 0) + 1);
    setTimeout(() => response.end("ok"), delayMs);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  hooks = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      events.push(JSON.parse(body));
      response.end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
  master = await startTestMaster({
    webhooks: [`http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`],
  });
  worker = await startTestWorker(master, { name: "scheduled" });
});
afterAll(async () => {
  await worker?.shutdown(2000);
  await master?.close();
  target?.close();
  hooks?.close();
});

const scenario = (name: string, path: string, iterations = 20) => ({
  name,
  target: targetUrl,
  load: { executor: "shared-iterations", vus: 2, iterations },
  requests: [{ path }],
});

async function runsNamed(name: string): Promise<RunPage["runs"]> {
  const page = await getJson<RunPage>(`${master.url}/api/runs?name=${name}&limit=50`);
  return page.runs.filter((r) => r.name === name);
}

describe("schedules", () => {
  it("refuses a bad cron, time zone or limit, naming the field", async () => {
    const base = { name: "bad", scenario: scenario("bad", "/bad") };
    const cron = await sendJson("POST", `${master.url}/api/schedules`, { ...base, cron: "61 * * * *" });
    expect(cron.status, JSON.stringify(cron.body)).toBe(400);
    expect(cron.body.details?.[0].path).toBe("cron");
    const zone = await sendJson("POST", `${master.url}/api/schedules`, {
      ...base,
      cron: "* * * * *",
      timezone: "Mars/Olympus",
    });
    expect(zone.status, JSON.stringify(zone.body)).toBe(400);
    expect(zone.body.details?.[0].path).toBe("timezone");
    const limit = await sendJson("POST", `${master.url}/api/schedules`, {
      ...base,
      cron: "* * * * *",
      baseline: "last",
      maxRegression: "p95=lots",
    });
    expect(limit.status).toBe(400);
    expect(limit.body.details?.[0].path).toBe("maxRegression");
    const noBaseline = await sendJson("POST", `${master.url}/api/schedules`, {
      ...base,
      cron: "* * * * *",
      maxRegression: "p95=10%",
    });
    expect(noBaseline.body.details?.[0].path).toBe("baseline");
    const badScenario = await sendJson("POST", `${master.url}/api/schedules`, {
      ...base,
      cron: "* * * * *",
      scenario: { name: "x" },
    });
    expect(badScenario.status).toBe(400);
    expect(await getJson<ScheduleView[]>(`${master.url}/api/schedules`)).toEqual([]);
  });

  it("fires on time, each firing one exact run recorded as the schedule's, and stops when disabled", async () => {
    const made = await sendJson("POST", `${master.url}/api/schedules`, {
      name: "every-two",
      cron: "*/2 * * * * *",
      scenario: scenario("every-two", "/every-two"),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const schedule = made.body as unknown as ScheduleView;
    expect(new Date(schedule.nextRunAt ?? 0).getUTCSeconds() % 2).toBe(0);
    const first = await waitFor(async () => (await runsNamed("every-two")).at(-1), {
      what: "a scheduled run",
      timeoutMs: 10_000,
    });
    const done = await waitForRunEnd<RunDetail>(master.url, first.id, 30_000);
    expect(done.status).toBe("finished");
    expect(done.startedBy).toBe("schedule:every-two");
    const [row] = (await getJson<ScheduleView[]>(`${master.url}/api/schedules`)).filter(
      (s) => s.name === "every-two",
    );
    // The firing's tick is an even second, and the run was made within a second of it.
    const fired = (await runsNamed("every-two")).map((r) => r.id);
    expect(fired).toContain(row.lastRunId);
    expect(new Date(row.lastFiredAt ?? 0).getUTCSeconds() % 2).toBe(0);
    const last = await getJson<RunDetail>(`${master.url}/api/runs/${row.lastRunId}`);
    const late = Date.parse(last.createdAt) - Date.parse(row.lastFiredAt ?? "");
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1500);
    const disabled = await sendJson("PATCH", `${master.url}/api/schedules/${schedule.id}`, {
      enabled: false,
    });
    expect(disabled.status).toBe(200);
    expect((disabled.body as unknown as ScheduleView).nextRunAt).toBeNull();
    // Every run it started sent exactly its 20 requests.
    for (const id of await runsNamed("every-two").then((runs) => runs.map((r) => r.id))) {
      const run = await waitForRunEnd<RunDetail>(master.url, id, 30_000);
      expect(run.summary.total.requests).toBe(20);
    }
    const runs = (await runsNamed("every-two")).length;
    expect(served.get("/every-two")).toBe(20 * runs);
    expect(runs).toBeGreaterThanOrEqual(1);
  });

  it("runs the newest run of a name again when scheduled by that name", async () => {
    const before = served.get("/every-two") ?? 0;
    const made = await sendJson("POST", `${master.url}/api/schedules`, {
      name: "by-name",
      cron: "* * * * * *",
      scenario: "every-two",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const fired = await waitFor(
      async () => {
        const [row] = (await getJson<ScheduleView[]>(`${master.url}/api/schedules`)).filter(
          (s) => s.name === "by-name",
        );
        return row.lastRunId ?? undefined;
      },
      { what: "the schedule by name to fire", timeoutMs: 10_000 },
    );
    expect(
      (await sendJson("PATCH", `${master.url}/api/schedules/${made.body.id}`, { enabled: false })).status,
    ).toBe(200);
    const run = await waitForRunEnd<RunDetail>(master.url, fired, 30_000);
    expect(run.status).toBe("finished");
    expect(run.name).toBe("every-two");
    expect(run.startedBy).toBe("schedule:by-name");
    for (const r of await runsNamed("every-two")) await waitForRunEnd(master.url, r.id, 30_000);
    const started = (await runsNamed("every-two")).filter((r) => r.id === fired || r.id > fired).length;
    expect((served.get("/every-two") ?? 0) - before).toBe(20 * started);
  });

  it("queues a firing behind a busy worker, and fires run.regressed when a run is worse than the last", async () => {
    const busy = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        ...scenario("busy", "/busy"),
        load: { executor: "constant-vus", vus: 1, duration: "30s" },
        thinkTime: "50ms",
      },
    });
    expect(busy.status).toBe(201);
    const made = await sendJson("POST", `${master.url}/api/schedules`, {
      name: "nightly",
      cron: "* * * * * *",
      // 60 iterations: the two cold first requests (5 % of 40) would set a run's p95 on a busy
      // machine, and a cold fast baseline can be as slow as a warm slow run.
      scenario: scenario("nightly", "/nightly", 60),
      baseline: "last",
      maxRegression: "p95=100%",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const queued = await waitFor(
      async () => (await runsNamed("nightly")).find((r) => r.status === "queued"),
      { what: "the scheduled run to wait in the queue", timeoutMs: 10_000 },
    );
    expect(
      (await sendJson("PATCH", `${master.url}/api/schedules/${made.body.id}`, { enabled: false })).status,
    ).toBe(200);
    await sendJson("POST", `${master.url}/api/runs/${busy.body.id}/stop`);
    const baseline = await waitForRunEnd<RunDetail>(master.url, queued.id, 30_000);
    expect(baseline.status).toBe("finished");
    for (const run of await runsNamed("nightly")) await waitForRunEnd(master.url, run.id, 30_000);
    // Much slower answers: the next scheduled run regresses against the last one (p95 limit +100 %).
    delayMs = 100;
    expect(
      (await sendJson("PATCH", `${master.url}/api/schedules/${made.body.id}`, { enabled: true })).status,
    ).toBe(200);
    const regressed = await waitFor(() => events.find((e) => e.event === "run.regressed"), {
      what: "the run.regressed webhook",
      timeoutMs: 20_000,
    });
    await sendJson("PATCH", `${master.url}/api/schedules/${made.body.id}`, { enabled: false });
    expect(regressed.run.name).toBe("nightly");
    expect(regressed.regressions?.map((r) => r.metric)).toContain("p95");
    const slow = await getJson<RunDetail>(`${master.url}/api/runs/${regressed.run.id}`);
    expect(slow.summary.total.latencyMs.p95).toBeGreaterThan(95);
    for (const run of await runsNamed("nightly")) await waitForRunEnd(master.url, run.id, 30_000);
    expect(served.get("/nightly")).toBe(60 * (await runsNamed("nightly")).length);
  });
});
