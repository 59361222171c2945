import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/databases.js";
import {
  getJson,
  hold,
  isolatedSetup,
  killAll,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
  waitForRunSeconds,
} from "./support/processes.js";
import { freePort, TestRedis } from "./support/redis-server.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Real processes: a master, worker processes, and a loopback server that counts what it gets.
// The merged report must equal the server's count, whatever is killed or restarted mid-run.
let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
afterEach(async () => {
  await killAll();
  target.reset();
  target.stallUntil = 0;
});

const scenario = (duration: string, vus = 8) => ({
  name: "distributed",
  target: target.url,
  load: { executor: "constant-vus", vus, duration },
  requests: [{ name: "hello", path: "/hello" }],
  thinkTime: "2ms",
});

async function startRun(masterUrl: string, body: unknown): Promise<string> {
  const created = await sendJson("POST", `${masterUrl}/api/runs`, { scenario: body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

describe("distributed runs", () => {
  it("two workers: the merged report equals the server's count exactly", async () => {
    const setup = isolatedSetup();
    const master = await startMasterProcess(setup);
    await startWorkerProcess(master.url, { name: "alpha", threads: 2 });
    await startWorkerProcess(master.url, { name: "beta", threads: 1 });
    const id = await startRun(master.url, scenario("3s", 9));
    const run = await waitForRunEnd(master.url, id);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(target.total());
    expect(run.summary.total.requests).toBeGreaterThan(100);
    expect(run.workers.map((w) => [w.name, w.vus, w.status])).toEqual([
      ["alpha", 6, "finished"],
      ["beta", 3, "finished"],
    ]);
    expect(run.workers.reduce((sum, w) => sum + w.requests, 0)).toBe(run.summary.total.requests);
    const series = await getJson<{ overall: Array<{ rps: number; vus: number }> }>(
      `${master.url}/api/runs/${id}/timeseries`,
    );
    expect(series.overall.reduce((sum, p) => sum + p.rps, 0)).toBe(run.summary.total.requests);
    expect(Math.max(...series.overall.map((p) => p.vus))).toBe(9);
  });

  it("a worker killed mid-run is marked lost; the run finishes on the other and keeps what it reported", async () => {
    const setup = isolatedSetup();
    const master = await startMasterProcess(setup, ["--heartbeat-timeout", "2"]);
    const doomed = await startWorkerProcess(master.url, { name: "doomed" });
    await startWorkerProcess(master.url, { name: "survivor" });
    const id = await startRun(master.url, scenario("6s", 4));
    await waitForRunSeconds(master.url, id, 3);
    doomed.signal("SIGKILL");
    const lostAt = Date.now();
    await waitFor(
      async () => {
        const workers = await getJson<Array<{ name: string; state: string }>>(`${master.url}/api/workers`);
        return workers.find((w) => w.name === "doomed")?.state === "lost";
      },
      { what: "the killed worker to be marked lost", timeoutMs: 6000 },
    );
    expect(Date.now() - lostAt).toBeLessThan(4000);
    const run = await waitForRunEnd(master.url, id);
    expect(run.status).toBe("finished");
    const doomedReport = run.workers.find((w) => w.name === "doomed");
    const survivor = run.workers.find((w) => w.name === "survivor");
    expect(doomedReport?.status).toBe("lost");
    expect(doomedReport?.requests).toBeGreaterThan(0);
    expect(survivor?.status).toBe("finished");
    expect(run.summary.total.requests).toBe(run.workers.reduce((sum, w) => sum + w.requests, 0));
    // Only what the killed worker measured after its last batch is missing (at most ~2 seconds of it).
    const missing = target.total() - run.summary.total.requests;
    expect(missing).toBeGreaterThanOrEqual(0);
    expect(missing).toBeLessThan((doomedReport?.requests ?? 0) / 2);
    // The report says so where a reader looks first: its warnings, and the HTML report.
    const lost = run.warnings.find((w) => w.kind === "worker-lost");
    expect(lost).toMatchObject({ workerName: "doomed" });
    expect(lost?.message).toMatch(/doomed was lost after \d+ s: what it sent later is missing/);
    const html = await (await fetch(`${master.url}/api/runs/${id}/report.html`)).text();
    expect(html).toContain("doomed was lost after");
  });

  // The same instance id (host:port) resumes at once; a new one (a replaced container) waits for
  // the dead owner's lease to run out, and the workers keep running meanwhile.
  it.each([
    ["the same instance id", { VOLLEY_INSTANCE_ID: "master-a" }, { VOLLEY_INSTANCE_ID: "master-a" }],
    ["a new instance id", { VOLLEY_INSTANCE_ID: "old-pod" }, { VOLLEY_INSTANCE_ID: "new-pod" }],
  ])(
    "a master killed mid-run and restarted with %s finishes the run with the server's exact count",
    async (_, before, after) => {
      const setup = isolatedSetup();
      const port = await freePort();
      const lease = { VOLLEY_RUN_LEASE_MS: "3000" };
      const first = await startMasterProcess(setup, ["--port", String(port)], { ...before, ...lease });
      await startWorkerProcess(first.url, { name: "steady-1" });
      await startWorkerProcess(first.url, { name: "steady-2" });
      const id = await startRun(first.url, scenario("8s", 6));
      await waitForRunSeconds(first.url, id, 2);
      first.signal("SIGKILL");
      await first.exited;
      await hold(1000); // the master stays down for a second while its workers keep running
      const second = await startMasterProcess(setup, ["--port", String(port)], { ...after, ...lease });
      const run = await waitForRunEnd<RunDetail>(second.url, id, 90_000);
      expect(run.status).toBe("finished");
      expect(run.summary.total.requests).toBe(target.total());
      expect(run.workers.every((w) => w.status === "finished")).toBe(true);
      // The workers ran the whole plan: nobody stopped them while the run waited for its new owner.
      expect(run.summary.durationS).toBeGreaterThan(7.5);
    },
  );

  it("Redis restarted mid-run: workers buffer, nothing is lost", async () => {
    const redis = await TestRedis.start();
    try {
      const setup = { ...isolatedSetup(), redisUrl: redis.url };
      const master = await startMasterProcess(setup);
      await startWorkerProcess(master.url, { name: "buffering", env: { REDIS_URL: redis.url } });
      const id = await startRun(master.url, scenario("6s", 4));
      await waitForRunSeconds(master.url, id, 2);
      await redis.stopServer();
      const health = await fetch(`${master.url}/api/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        ok: false,
        redis: "down",
        database: "up",
        code: "VOL_ERR_UNAVAILABLE",
      });
      await hold(2000); // Redis stays down for two seconds of batches
      await redis.startServer();
      const run = await waitForRunEnd(master.url, id, 90_000);
      expect(run.status).toBe("finished");
      expect(run.summary.total.requests).toBe(target.total());
      expect(run.workers[0].lostBatches).toBe(0);
      // Through the outage, the master's log stayed JSON lines: no raw stack on its output.
      const lines = master.output
        .join("")
        .split("\n")
        .filter((l) => l.trim() && !l.startsWith("Volley master on"));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(master.output.join("")).toContain("redis");
    } finally {
      await killAll();
      await redis.stopServer();
    }
  });
});

describe("distributed runs on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("postgresql");
  });
  afterAll(async () => {
    await killAll();
    await database.drop();
  });

  it("a run survives a master restart", async () => {
    const setup = { ...isolatedSetup(), databaseUrl: database.url };
    const port = await freePort();
    const first = await startMasterProcess(setup, ["--port", String(port)]);
    await startWorkerProcess(first.url, { name: "pg-worker", threads: 2 });
    const id = await startRun(first.url, scenario("6s", 6));
    await waitForRunSeconds(first.url, id, 2);
    first.signal("SIGKILL");
    await first.exited;
    const second = await startMasterProcess(setup, ["--port", String(port)]);
    const run = await waitForRunEnd<RunDetail>(second.url, id, 90_000);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(target.total());
    const health = await getJson<{ databaseProvider: string }>(`${second.url}/api/health`);
    expect(health.databaseProvider).toBe("postgresql");
  });
});
