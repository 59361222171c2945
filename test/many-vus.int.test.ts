import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

// Far more VUs than connections: the VUs wait for a connection in the engine, start a chunk per
// event-loop turn, and a stop ends at once the iterations that have sent nothing.
describe("many VUs on few connections", () => {
  let fleet: TestFleet;
  let target: TargetServer;
  let master: RunningMaster;

  beforeAll(async () => {
    fleet = await startTestFleet({ threads: 1, master: { heartbeatTimeoutMs: 3000 } });
    ({ target, master } = fleet);
  });
  afterAll(() => fleet.close());

  const scenario = (vus: number) => ({
    name: `vus-${vus}`,
    target: target.url,
    load: { executor: "constant-vus", vus, duration: "3s" },
    http: { maxConnections: 20 },
    requests: [{ path: "/hello" }],
  });

  it("refuses a plan beyond 100,000 VUs per engine thread, naming the field", async () => {
    const refused = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario(150_000) });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([
      { path: "load.vus", message: expect.stringMatching(/150000 VUs need 2 engine threads .* have 1/) },
    ]);
  });

  it("100,000 VUs on 20 connections: on time, exact, the worker never lost, figures fixed once ended", async () => {
    const created = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario(100_000) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(run.status).toBe("finished");
    expect(run.workers.map((w) => w.status)).toEqual(["finished"]);
    expect(run.summary.durationS).toBeGreaterThan(2.9);
    expect(run.summary.durationS).toBeLessThan(6);
    expect(run.summary.total.requests).toBeGreaterThan(0);
    // Only requests that reached the server: none "aborted" for VUs still waiting at the stop.
    expect(run.summary.total.requests).toBe(target.total());
    expect(run.summary.errors).toEqual([]);
    expect(run.summary.total.rps).toBeLessThan(run.summary.total.requests);

    // Once the worker is ready again it has sent all it will ever send of the run.
    await waitFor(() => master.services.registry.list().every((w) => w.state === "ready"), {
      what: "the worker to be ready again",
    });
    const later = await getJson<RunDetail>(`${master.url}/api/runs/${run.id}`);
    expect(later.summary.total).toEqual(run.summary.total);
  });
});
