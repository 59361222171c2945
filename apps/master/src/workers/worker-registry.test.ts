import type { WorkerHeartbeat, WorkerHello } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { type WorkerChannel, WorkerRegistry } from "./worker-registry.js";

const hello = (workerId: string, activeRunId: string | null = null): WorkerHello => ({
  type: "hello",
  workerId,
  name: workerId,
  host: "h",
  threads: 1,
  cores: 1,
  version: "test",
  pid: 1,
  local: false,
  activeRunId,
});

const beat = (state: WorkerHeartbeat["state"], runId: string | null): WorkerHeartbeat => ({
  type: "heartbeat",
  state,
  runId,
  vus: 3,
  cpu: 10,
  machineCpu: 10,
  memoryMb: 50,
  eventLoopDelayMs: 1,
  sentAt: Date.now(),
});

function registry(inProgress?: (runId: string) => boolean) {
  const channel: WorkerChannel = { send: () => {}, close: () => {} };
  const r = new WorkerRegistry({
    heartbeatTimeoutMs: 5000,
    inProgress,
    onLost: () => {},
    onChange: () => {},
  });
  return { r, channel };
}

describe("WorkerRegistry", () => {
  it("a released worker is ready at once, and a late heartbeat of the ended run does not take it back", () => {
    const { r, channel } = registry();
    r.connect(hello("w1"), channel, "h");
    r.heartbeat("w1", beat("running", "run-a"));
    expect(r.ready()).toHaveLength(0);

    r.release("w1", "run-a");
    expect(r.ready().map((e) => e.info.id)).toEqual(["w1"]);
    expect(r.get("w1")?.info).toMatchObject({ state: "ready", runId: null, vus: 0 });

    // Sent before the release, arriving after it: the slice's teardown, not a new run.
    r.heartbeat("w1", beat("stopping", "run-a"));
    expect(r.ready()).toHaveLength(1);

    // A heartbeat of another run is believed.
    r.heartbeat("w1", beat("running", "run-b"));
    expect(r.ready()).toHaveLength(0);
  });

  it("release names the run: a worker already in another run stays busy", () => {
    const { r, channel } = registry();
    r.connect(hello("w1", "run-b"), channel, "h");
    r.release("w1", "run-a");
    expect(r.get("w1")?.info).toMatchObject({ state: "running", runId: "run-b" });
    expect(r.connected()).toHaveLength(1);
  });

  it("a worker sent a slice stays busy while heartbeats sent before it read start-run say ready", () => {
    const { r, channel } = registry();
    r.connect(hello("w1"), channel, "h");
    r.heartbeat("w1", beat("running", "run-a"));
    r.release("w1", "run-a");
    r.assign("w1", "run-b");
    expect(r.ready()).toHaveLength(0);

    // In flight when the slice was sent: ready, or still tearing down the released run.
    r.heartbeat("w1", beat("stopping", "run-a"));
    expect(r.get("w1")?.info).toMatchObject({ state: "running", runId: "run-b" });
    r.heartbeat("w1", beat("ready", null));
    expect(r.get("w1")?.info).toMatchObject({ state: "running", runId: "run-b" });

    // The worker names the run: from now on its heartbeats are believed as they are.
    r.heartbeat("w1", beat("running", "run-b"));
    r.heartbeat("w1", beat("ready", null));
    expect(r.get("w1")?.info).toMatchObject({ state: "ready", runId: null });
  });

  it("a slice the worker never acknowledged is freed when the run releases it", () => {
    const { r, channel } = registry();
    r.connect(hello("w1"), channel, "h");
    r.assign("w1", "run-a");
    r.release("w1", "run-a");
    r.heartbeat("w1", beat("ready", null));
    expect(r.ready().map((e) => e.info.id)).toEqual(["w1"]);
  });

  it("a worker done with a run still in progress stays held by it until the run releases it", () => {
    const inProgress = new Set(["run-a"]);
    const { r, channel } = registry((runId) => inProgress.has(runId));
    r.connect(hello("w1"), channel, "h");
    r.heartbeat("w1", beat("running", "run-a"));
    // Its slice is over, the master has not merged its last batch: the run is not over yet.
    r.heartbeat("w1", beat("ready", null));
    expect(r.get("w1")?.info).toMatchObject({ state: "ready", runId: "run-a" });
    expect(r.ready()).toHaveLength(0);

    r.release("w1", "run-a");
    inProgress.delete("run-a");
    expect(r.ready().map((e) => e.info.id)).toEqual(["w1"]);
    r.heartbeat("w1", beat("ready", null));
    expect(r.get("w1")?.info).toMatchObject({ state: "ready", runId: null });
  });

  it("a run that ended without releasing its worker holds it no longer", () => {
    const inProgress = new Set(["run-a"]);
    const { r, channel } = registry((runId) => inProgress.has(runId));
    r.connect(hello("w1"), channel, "h");
    r.heartbeat("w1", beat("running", "run-a"));
    r.heartbeat("w1", beat("ready", null));
    inProgress.delete("run-a");
    expect(r.ready().map((e) => e.info.id)).toEqual(["w1"]);
    r.heartbeat("w1", beat("ready", null));
    expect(r.get("w1")?.info.runId).toBeNull();
  });
});
