import type { RunningMaster } from "@volley/master";
import type { LiveMessage, RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FakeWorker } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// A run whose worker overruns its planned end: told to stop with the reason `deadline`, which is
// stored and pushed live like any stop; still silent past the overrun, the worker is lost and the
// run ends keeping the reason.
let master: RunningMaster;
beforeAll(async () => {
  master = await startTestMaster({ runOverrunMs: 1000 });
});
afterAll(() => master?.close());

describe("a run past its deadline", () => {
  it("stops with stopReason deadline, pushed live, and ends with it", async () => {
    const live: LiveMessage[] = [];
    const feed = new WebSocket(`${master.url.replace("http", "ws")}/ws/live`);
    feed.on("message", (data) => live.push(JSON.parse(data.toString())));
    await new Promise((resolve) => feed.once("open", resolve));
    const worker = await FakeWorker.join(master);
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "overrun",
        target: "http://127.0.0.1:9",
        load: { executor: "constant-vus", vus: 1, duration: "1s" },
        requests: [{ path: "/" }],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const start = await worker.acceptRun();
    expect(start.runId).toBe(id);
    // The worker keeps beating "running" and never sends its final batch.
    const beat = setInterval(() => worker.heartbeat("running", id), 300);
    try {
      const stop = await worker.next("stop-run", 15_000);
      expect(stop.runId).toBe(id);
      await waitFor(
        () => live.some((m) => m.type === "run-status" && m.run.id === id && m.run.stopReason === "deadline"),
        { what: "the deadline stop pushed live" },
      );
      const run = await waitForRunEnd<RunDetail>(master.url, id, 30_000);
      expect(run.stopReason).toBe("deadline");
      expect(run.warnings.some((w) => w.kind === "worker-lost")).toBe(true);
    } finally {
      clearInterval(beat);
      feed.close();
      await worker.close();
    }
  });
});
