import { ApiClient, RunFollower } from "@volley/cli";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { sendJson } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// `volley run` follows its run on the live feed: the figures of each merged second, the end as
// soon as the master says so, and the run read over HTTP only when its status changes.
let master: RunningMaster;
let worker: WorkerNode;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ startDelayMs: 500 });
  worker = await startTestWorker(master);
});
afterAll(async () => {
  await worker?.shutdown(3000);
  await master?.close();
  await target?.close();
});

/** An API client that counts its reads of the run (and can point its live feed elsewhere). */
class CountingClient extends ApiClient {
  reads = 0;
  constructor(
    url: string,
    private readonly live?: string,
  ) {
    super(url);
  }
  override run(id: string): Promise<RunDetail> {
    this.reads++;
    return super.run(id);
  }
  override liveUrl(): string {
    return this.live ?? super.liveUrl();
  }
}

async function startRun(name: string): Promise<string> {
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name,
      target: target.url,
      load: { executor: "constant-vus", vus: 2, duration: "4s" },
      thinkTime: "20ms",
      requests: [{ path: "/hello" }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

describe("RunFollower", () => {
  it("shows each merged second from the live feed and reads the run only when its status changes", async () => {
    const before = target.counts.get("/hello") ?? 0;
    const api = new CountingClient(master.url);
    const runId = await startRun("followed");
    const seconds: number[] = [];
    const run = await new RunFollower(api, runId, (current) => {
      if (current.now) seconds.push(current.now.t);
    }).follow();
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe((target.counts.get("/hello") ?? 0) - before);
    // Seconds 0..3 of the 4 s load came in one by one, in order.
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    expect([...seconds].sort((a, b) => a - b)).toEqual(seconds);
    // Read at the start and at the end (and at most once more): not once a second.
    expect(api.reads).toBeLessThanOrEqual(3);
  });

  it("without a live feed it reads the run every second, to the same end", async () => {
    const before = target.counts.get("/hello") ?? 0;
    // The target answers the upgrade with a plain 200: no feed there.
    const api = new CountingClient(master.url, `${target.url.replace("http", "ws")}/ws/live`);
    const runId = await startRun("polled");
    const run = await new RunFollower(api, runId, () => {}).follow();
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe((target.counts.get("/hello") ?? 0) - before);
    expect(api.reads).toBeGreaterThanOrEqual(4);
  });
});
