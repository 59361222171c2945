import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeWorker, requestStats } from "./support/fake-worker.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Heartbeats every 4 s: a worker is only free for the next run in time if the master frees it
// itself when the previous run's last batch is merged, not when a heartbeat says so.
let target: TargetServer;
let master: RunningMaster;
let workers: WorkerNode[] = [];

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ heartbeatIntervalMs: 4000, heartbeatTimeoutMs: 20_000 });
  workers = [
    await startTestWorker(master, { name: "seq-a", threads: 2 }),
    await startTestWorker(master, { name: "seq-b", threads: 1 }),
  ];
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.shutdown(2000)));
  await master?.close();
  await target?.close();
});

const scenario = (name: string) => ({
  name,
  target: target.url,
  load: { executor: "per-vu-iterations", vus: 20, iterations: 30 },
  requests: [{ name: "hello", path: "/hello" }],
});

describe("runs back to back", () => {
  it("a run posted as soon as the previous one ends is taken, on every worker, with exact counts", async () => {
    const before = target.counts.get("/hello") ?? 0;
    for (let i = 0; i < 4; i++) {
      const created = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario(`seq-${i}`) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string);
      expect(run.status).toBe("finished");
      expect(run.workers).toHaveLength(2);
      expect(run.summary.total.requests).toBe(600);
    }
    expect((target.counts.get("/hello") ?? 0) - before).toBe(2400);
  });

  it("a worker whose last batch is merged is free although its heartbeat still names the old run", async () => {
    await Promise.all(workers.map((w) => w.shutdown(2000)));
    workers = [];
    const slow = await FakeWorker.join(master);
    try {
      const first = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario("slow-1") });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const start = await slow.acceptRun();
      await slow.push({ runId: start.runId, seq: 0, requests: [requestStats("hello", 300)] });
      await slow.push({ runId: start.runId, seq: 1, final: true, requests: [requestStats("hello", 300)] });
      const ended = await waitForRunEnd<RunDetail>(master.url, start.runId);
      expect(ended.summary.total.requests).toBe(600);
      // Its threads are still winding down: it has sent neither run-ended nor a ready heartbeat.
      slow.heartbeat("stopping", start.runId);
      const second = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario("slow-2") });
      expect(second.status, JSON.stringify(second.body)).toBe(201);
      expect((await slow.next("start-run")).runId).toBe(second.body.id);
      await sendJson("POST", `${master.url}/api/runs/${second.body.id}/stop`, {});
    } finally {
      await slow.close();
    }
  });
});
