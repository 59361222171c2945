import type { RunningMaster } from "@volley/master";
import { COMBINED_JOB, type RunDetail, statsQueueName } from "@volley/protocol";
import { MetricRecorder } from "@volley/stats";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeWorker, requestStats } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

let master: RunningMaster;
beforeAll(async () => {
  master = await startTestMaster();
});
afterAll(() => master?.close());

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${master.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

/** A run of one VU against a closed port: the fake worker's batches are all it counts. */
async function startRun(name: string): Promise<string> {
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name,
      target: "http://127.0.0.1:9",
      load: { executor: "constant-vus", vus: 1, duration: "10s" },
      requests: [{ name: "hello", path: "/hello" }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** A custom counter's statistics, as a scripted worker sends them. */
function orders() {
  const recorder = new MetricRecorder("orders", { type: "counter", unit: "none" });
  recorder.add(3);
  return recorder.flush();
}

describe("the stats pipeline does not trust its input", () => {
  it("refuses batches the plan or arithmetic rule out, whole, and keeps counting the real ones exactly", async () => {
    const worker = await FakeWorker.join(master);
    try {
      const runId = await startRun("poisoned");
      await worker.acceptRun();
      const rejectedBefore = await metric("volley_batches_rejected_total");
      const hello = requestStats("hello", 5);
      const badHistogram = { ...hello, latency: { ...hello.latency, histogram: "AgE=" } };
      const poison = [
        { seq: 2, second: 200_000, requests: [hello] },
        { seq: 3, second: 3_000_000, requests: [hello] },
        { seq: 3_000_000, second: 3, requests: [hello] },
        { seq: 4, requests: [{ ...hello, failures: 6 }] },
        { seq: 5, requests: [{ ...hello, requests: 2 ** 53 - 1 }] },
        { seq: 6, requests: [requestStats("not-in-the-scenario", 5)] },
        { seq: 7, requests: [{ ...hello, statusCodes: { "999": 5 } }] },
        // Valid first, broken second: nothing of it may be applied.
        { seq: 8, requests: [hello, { ...badHistogram, name: "hello" }] },
        { seq: 9, requests: [badHistogram] },
        // A custom metric in a run without a script, and a gauge's figures on a request.
        { seq: 11, requests: [hello, orders()] },
        { seq: 12, requests: [{ ...hello, gauge: { last: 1, atMs: 1, min: 1, max: 1 } }] },
      ];
      for (const batch of poison) await worker.push({ runId, ...batch });
      // A batch naming another run, in this run's queue (only the run's owner reads each queue).
      await worker.push({ runId: "0another-run", seq: 10, requests: [hello] }, runId);
      await waitFor(
        async () => (await metric("volley_batches_rejected_total")) - rejectedBefore >= poison.length + 1,
        { what: "every poisoned batch to be rejected", timeoutMs: 20_000 },
      );
      // The master stayed responsive and small.
      const t0 = Date.now();
      expect(await getJson(`${master.url}/api/health`)).toMatchObject({ ok: true });
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(process.memoryUsage().rss).toBeLessThan(1024 * 1024 * 1024);

      expect(master.services.intake.accepted).toBe(0);
      await worker.push({ runId, seq: 0, requests: [requestStats("hello", 7)] });
      await worker.push({ runId, seq: 1, final: true, requests: [requestStats("hello", 4)] });
      const run = await waitForRunEnd<RunDetail>(master.url, runId);
      expect(run.summary.total.requests).toBe(11);
      expect(run.summary.total.failures).toBe(0);
      expect(Object.keys(run.summary.statusCodes)).toEqual(["200"]);
      expect(run.summary.requests.map((r) => r.name)).toEqual(["hello"]);
      const points = await getJson<{ overall: unknown[] }>(`${master.url}/api/runs/${runId}/timeseries`);
      expect(points.overall.length).toBeLessThan(20);

      // After the final status nothing changes the figures: the run's queue was deleted (the
      // refused batches kept in it with it), and a batch pushed after that stays there unread.
      await waitFor(() => !master.services.consumers.consumes(runId), { what: "the run's queue closed" });
      expect(Object.values(await worker.jobCounts(runId)).every((n) => n === 0)).toBe(true);
      await worker.push({ runId, seq: 20, requests: [requestStats("hello", 50)] });
      expect((await worker.jobCounts(runId)).waiting).toBe(1);
      const after = await getJson<RunDetail>(`${master.url}/api/runs/${runId}`);
      expect(after.summary.total.requests).toBe(11);
    } finally {
      await worker.close();
    }
  });

  it("refuses aggregators' groups that are malformed, name an outsider or overlap merged batches, and a bad route in a heartbeat", async () => {
    const worker = await FakeWorker.join(master);
    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
      maxRetriesPerRequest: null,
    });
    const queues: Queue[] = [];
    try {
      const runId = await startRun("grouped");
      await worker.acceptRun();
      // A route that is not a partition id: the message is refused, naming the field.
      worker.send({
        type: "heartbeat",
        state: "running",
        runId,
        vus: 1,
        cpu: 1,
        machineCpu: 1,
        memoryMb: 1,
        eventLoopDelayMs: 0,
        aggregator: "no spaces allowed",
        sentAt: Date.now(),
      });
      const refused = await worker.next("error");
      expect(refused).toMatchObject({ code: "VOL_ERR_BAD_MESSAGE" });
      expect(refused.message).toContain("aggregator");

      const queue = new Queue(statsQueueName(runId), {
        connection: redis,
        prefix: master.services.config.queuePrefix,
      });
      queues.push(queue);
      const group = (
        name: string,
        covers: Array<{ workerId: string; seq: number; requests: number }>,
        final = false,
      ) => ({
        runId,
        partition: "p",
        group: name,
        second: covers[0]?.seq ?? 0,
        covers: covers.map((c) => ({ ...c, final, vus: 1, lostBatches: 0, elapsedMs: (c.seq + 1) * 1000 })),
        vus: covers.length,
        dropped: 0,
        requests: [
          requestStats(
            "hello",
            covers.reduce((sum, c) => sum + c.requests, 0),
          ),
        ],
        sentAt: Date.now(),
      });
      const rejectedBefore = await metric("volley_batches_rejected_total");
      const add = (name: string, data: unknown) =>
        queue.add(COMBINED_JOB, data, { jobId: `${runId}.${name}` });
      await add("valid", group("p.1", [{ workerId: worker.workerId, seq: 0, requests: 5 }]));
      await waitFor(() => master.services.intake.groups === 1, { what: "the valid group to be merged" });
      await add("empty", {
        ...group("p.2", [{ workerId: worker.workerId, seq: 1, requests: 1 }]),
        covers: [],
      });
      await add("outsider", group("p.3", [{ workerId: "not-in-the-run", seq: 1, requests: 1 }]));
      await add(
        "overlap",
        group("p.4", [
          { workerId: worker.workerId, seq: 0, requests: 5 },
          { workerId: worker.workerId, seq: 1, requests: 1 },
        ]),
      );
      await waitFor(async () => (await metric("volley_batches_rejected_total")) - rejectedBefore >= 3, {
        what: "the three bad groups to be rejected",
        timeoutMs: 20_000,
      });
      await add("last", group("p.5", [{ workerId: worker.workerId, seq: 1, requests: 4 }], true));
      const run = await waitForRunEnd<RunDetail>(master.url, runId);
      // Only the two good groups count: 5 + 4.
      expect(run.summary.total.requests).toBe(9);
      expect(run.workers[0].requests).toBe(9);
    } finally {
      for (const queue of queues) await queue.close();
      redis.disconnect();
      await worker.close();
    }
  });
});
