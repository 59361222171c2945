import type { RunningMaster } from "@volley/master";
import { type RunDetail, withTimeout } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from "./support/databases.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { hold, sendJson, waitFor, waitForRunEnd, waitForRunSeconds } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

interface HealthSample {
  status: number;
  ms: number;
  database: string;
  problems?: string[];
}

async function health(url: string): Promise<HealthSample> {
  const t0 = Date.now();
  const response = await fetch(`${url}/api/health`);
  const body = (await response.json()) as { database: string; problems?: string[] };
  return { status: response.status, ms: Date.now() - t0, database: body.database, problems: body.problems };
}

/** Health every 200 ms until `stop` resolves. */
async function sampleHealth(url: string, stop: Promise<void>): Promise<HealthSample[]> {
  const samples: HealthSample[] = [];
  let done = false;
  void stop.then(() => {
    done = true;
  });
  while (!done) {
    samples.push(await health(url));
    await hold(200);
  }
  return samples;
}

// The database locked or read-only during a run: the master keeps answering at once, says
// `degraded` with the reason, and loses nothing once the database is back.
describe("database outages", () => {
  let target: TargetServer;
  let database: TestDatabase | undefined;
  let master: RunningMaster | undefined;
  let worker: WorkerNode | undefined;

  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterAll(() => target.close());
  // Each step bounded on its own, so a step that hangs is named rather than the whole hook.
  afterEach(async () => {
    await withTimeout(worker?.shutdown(3000) ?? Promise.resolve(), 30_000, "the worker did not shut down");
    await withTimeout(master?.close() ?? Promise.resolve(), 40_000, "the master did not close");
    await withTimeout(database?.drop() ?? Promise.resolve(), 30_000, "the database was not dropped");
    target.reset();
  });

  async function startRun(duration: string): Promise<string> {
    const created = await sendJson("POST", `${master?.url}/api/runs`, {
      scenario: {
        name: "outage",
        target: target.url,
        load: { executor: "constant-vus", vus: 2, duration },
        requests: [{ path: "/hello" }],
        thinkTime: "5ms",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  }

  it("SQLite locked by another process: health answers at once and says degraded; nothing lost", async () => {
    database = await createTestDatabase("sqlite");
    master = await startTestMaster({ databaseUrl: database.url });
    worker = await startTestWorker(master);
    const runId = await startRun("12s");
    await waitForRunSeconds(master.url, runId, 1);

    // Another process holds the write lock for 9 s (longer than the 5 s a write waits for it).
    const locker = new BetterSqlite3(database.url.slice("file:".length));
    locker.exec("BEGIN IMMEDIATE");
    const samples = await sampleHealth(master.url, hold(9000));
    locker.exec("ROLLBACK");
    locker.close();

    expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(1000);
    const degraded = samples.filter((s) => s.status === 503);
    expect(degraded.length).toBeGreaterThan(0);
    expect(degraded[0].database).toBe("degraded");
    expect(degraded[0].problems?.join(" ")).toMatch(/statistics cannot be saved .*locked/);

    const run = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(target.total());
    expect(await health(master.url)).toMatchObject({ status: 200, database: "up" });
  });

  it("PostgreSQL read-only: health says degraded, a new run gets 503, the running one loses nothing", async () => {
    database = await createTestDatabase("postgresql");
    master = await startTestMaster({ databaseUrl: database.url });
    worker = await startTestWorker(master);
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    // New sessions are read-only; the master's open ones are ended so its pool reconnects.
    const setReadOnly = async (on: boolean) => {
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? "on" : "off"}`);
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
    };
    try {
      const url = master.url;
      const runId = await startRun("6s");
      await waitForRunSeconds(url, runId, 1);
      await setReadOnly(true);
      // The ended sessions may read as "down" for a moment while the pool reconnects; then the
      // read-only sessions say degraded.
      const during = await waitFor(
        async () => {
          const answer = await health(url);
          return answer.database === "degraded" ? answer : undefined;
        },
        { what: "health to say the database is degraded", timeoutMs: 10_000 },
      );
      expect(during).toMatchObject({ status: 503, database: "degraded" });
      expect(during.problems?.join(" ")).toContain("read-only");
      expect(during.ms).toBeLessThan(1000);
      await hold(1500);
      await setReadOnly(false);

      const run = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
      expect(run.status).toBe("finished");
      expect(run.summary.total.requests).toBe(target.total());
      expect(await health(master.url)).toMatchObject({ status: 200, database: "up" });

      // A run posted while the database refuses writes: 503 with the database's reason, not 500.
      await setReadOnly(true);
      await waitFor(async () => (await health(url)).database === "degraded", {
        what: "health to say degraded",
        timeoutMs: 10_000,
      });
      const refused = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name: "refused",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
          requests: [{ path: "/hello" }],
        },
      });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        code: "VOL_ERR_UNAVAILABLE",
        error: expect.stringContaining("read-only"),
      });
    } finally {
      await setReadOnly(false).catch(() => {});
      await admin.end();
    }
  });
});
