import type { RunningMaster } from "@volley/master";
import type { LoadChangeRecord } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeWorker } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// The master's side of a row handover, driven by fake workers that answer what a test wants:
// an answer is taken only when every row in it is that worker's; anything else is refused.
let master: RunningMaster;
beforeAll(async () => {
  master = await startTestMaster({ startDelayMs: 500 });
});
afterAll(() => master?.close());

/** Two fake workers (1 thread each) in a run with 100 unique rows: a holds 0-49, b 50-99. */
async function runOnTwo(name: string) {
  const a = await FakeWorker.join(master, { workerId: `${name}-a` });
  const b = await FakeWorker.join(master, { workerId: `${name}-b` });
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name,
      target: "http://127.0.0.1:9",
      data: { users: { rows: Array.from({ length: 100 }, (_, i) => ({ u: `u${i}` })), mode: "unique" } },
      load: { executor: "constant-vus", vus: 2, duration: "20s" },
      requests: [{ name: "hello", path: "/hello?u={{data.users.u}}" }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const runId = created.body.id as string;
  for (const worker of [a, b]) {
    const start = await worker.acceptRun();
    // Workers are planned in name order: a is first and holds the first block of rows.
    expect(start.partition[0].index).toBe(worker === a ? 0 : 1);
  }
  return { a, b, runId };
}

/** Stops the run; each worker sends its (empty) final batch, so the next run can start. */
async function end(runId: string, workers: FakeWorker[]): Promise<void> {
  await sendJson("POST", `${master.url}/api/runs/${runId}/stop`);
  for (const worker of workers) await worker.push({ runId, seq: 0, final: true });
  await waitForRunEnd(master.url, runId, 30_000);
  await Promise.all(workers.map((w) => w.close()));
}

describe("row handover: the master checks what workers give up", () => {
  it("grants a joiner the rows the others gave up, and refuses rows a worker does not hold", async () => {
    const { a, b, runId } = await runOnTwo("handover");
    const c = await FakeWorker.join(master, { workerId: "handover-c" });
    const answer = sendJson("POST", `${master.url}/api/runs/${runId}/rebalance`);
    const askA = await a.next("release-rows");
    const askB = await b.next("release-rows");
    // Joiner's threads (1) over all threads (3).
    expect(askA.share).toBeCloseTo(1 / 3);
    expect(askB.handover).toBe(askA.handover);
    // a gives up its own tail; b claims rows of a's block, which is refused whole.
    a.send({ type: "rows-released", runId, handover: askA.handover, rows: { users: [[40, 50]] } });
    b.send({ type: "rows-released", runId, handover: askB.handover, rows: { users: [[30, 35]] } });
    const done = await answer;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const record = (done.body.loadChanges as LoadChangeRecord[]).at(-1);
    expect(record).toMatchObject({ workers: 3, rows: { users: 10 } });
    const join = await c.next("start-run");
    expect(join.join?.rows).toEqual({ users: [[40, 50]] });
    await end(runId, [a, b, c]);
  });

  it("refuses malformed answers naming the field, and waits at most 3 s for a silent worker", async () => {
    const { a, b, runId } = await runOnTwo("silent");
    a.send({ type: "rows-released", runId, handover: 1, rows: { users: [[9, 3]] } });
    const refused = await a.next("error");
    expect(refused).toMatchObject({ code: "VOL_ERR_BAD_MESSAGE" });
    expect(refused.message).toContain("rows.users");
    const c = await FakeWorker.join(master, { workerId: "silent-c" });
    const began = Date.now();
    const answer = sendJson("POST", `${master.url}/api/runs/${runId}/rebalance`);
    const ask = await a.next("release-rows");
    a.send({ type: "rows-released", runId, handover: ask.handover, rows: { users: [[45, 50]] } });
    // b never answers: the rebalance goes on with a's rows after the wait.
    const done = await answer;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2900);
    expect((done.body.loadChanges as LoadChangeRecord[]).at(-1)?.rows).toEqual({ users: 5 });
    expect((await c.next("start-run")).join?.rows).toEqual({ users: [[45, 50]] });
    await end(runId, [a, b, c]);
  });
});
