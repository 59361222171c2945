import type { WorkerInfo } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import type { WorkerEntry } from "../workers/worker-registry.js";
import { admission } from "./run-admission.js";

const worker = (name: string, pool: string, runId: string | null = null): WorkerEntry =>
  ({
    info: {
      id: name,
      name,
      labels: { pool },
      runId,
      state: runId ? "running" : "ready",
    } as unknown as WorkerInfo,
  }) as WorkerEntry;

const onPool = (pool: string, count?: number) => ({
  workers: { selector: { pool }, ...(count ? { count } : {}) },
});
const fleet = [worker("a1", "a", "run-a"), worker("a2", "a", "run-a"), worker("b1", "b"), worker("b2", "b")];
const active = new Map([["run-a", { name: "on-a" }]]);

describe("admission: a run waits only for its own workers", () => {
  it("starts a run on a free pool beside a run on another", () => {
    expect(admission(onPool("b"), { workers: fleet, active, queuedAhead: [] })).toBeNull();
  });

  it("makes a run for a held pool wait, naming the run that holds it", () => {
    expect(admission(onPool("a"), { workers: fleet, active, queuedAhead: [] })).toMatch(
      /^run "on-a" \(run-a\) is in progress on the workers matching pool=a: .*"queue": true/,
    );
  });

  it("lets a run start on the free part of a pool when it asks for no more than is free", () => {
    const mixed = [worker("a1", "a", "run-a"), worker("a2", "a")];
    expect(admission(onPool("a", 1), { workers: mixed, active, queuedAhead: [] })).toBeNull();
    expect(admission(onPool("a", 2), { workers: mixed, active, queuedAhead: [] })).not.toBeNull();
  });

  it("counts a worker of a run that ended as free (it is finishing)", () => {
    expect(admission(onPool("a"), { workers: fleet, active: new Map(), queuedAhead: [] })).toBeNull();
  });

  it("keeps first come, first served within a pool, and only there", () => {
    const ahead = [{ id: "q1", name: "queued-b", scenario: onPool("b") }];
    expect(admission(onPool("b"), { workers: fleet, active, queuedAhead: ahead })).toMatch(
      /^run "queued-b" \(q1\) is queued ahead of it for the same workers/,
    );
    const elsewhere = [{ id: "q2", name: "queued-a", scenario: onPool("a") }];
    expect(admission(onPool("b"), { workers: fleet, active, queuedAhead: elsewhere })).toBeNull();
  });

  it("lets a run with no matching worker through (its launch says there is none)", () => {
    expect(admission(onPool("c"), { workers: fleet, active, queuedAhead: [] })).toBeNull();
  });
});
