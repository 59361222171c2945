import type { RunUpdate } from "@volley/db";
import { RUN_STATUSES, type RunStatus } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import {
  IllegalRunTransitionError,
  nextStatus,
  RUN_TRANSITIONS,
  type RunEvent,
  RunLifecycle,
  runOutcome,
} from "./run-lifecycle.js";

// Every event from every status (and from nothing): the moves the table allows lead where it
// says, every other one throws. Written out, so a change to the table is a change to this test.
const ALLOWED: Record<RunEvent, Partial<Record<RunStatus | "new", RunStatus[]>>> = {
  queue: { new: ["queued"] },
  start: { new: ["running"], queued: ["running"] },
  stop: { running: ["stopping"], stopping: ["stopping"] },
  cancel: { queued: ["aborted"] },
  fail: { new: ["failed"], queued: ["failed"], running: ["failed"], stopping: ["failed"] },
  end: {
    running: ["finished", "aborted", "failed"],
    stopping: ["finished", "aborted", "failed"],
  },
};

describe("the run lifecycle", () => {
  const froms: Array<RunStatus | null> = [null, ...RUN_STATUSES];
  const events = Object.keys(RUN_TRANSITIONS) as RunEvent[];

  it.each(events.flatMap((event) => froms.map((from) => [event, from] as const)))(
    "%s from %s",
    (event, from) => {
      const allowed = ALLOWED[event][from ?? "new"] ?? [];
      for (const to of RUN_STATUSES) {
        const move = () => nextStatus(from, event, to);
        if (allowed.includes(to)) expect(move()).toBe(to);
        else expect(move).toThrow(IllegalRunTransitionError);
      }
      // An event with one end needs no `to`; one with several does.
      if (allowed.length === 1) expect(nextStatus(from, event)).toBe(allowed[0]);
      else expect(() => nextStatus(from, event)).toThrow(IllegalRunTransitionError);
    },
  );

  it("an ended run never moves again", () => {
    for (const from of ["finished", "failed", "aborted"] as const) {
      for (const event of events) expect(() => nextStatus(from, event, "running")).toThrow();
    }
  });

  const outcome = (over: Partial<Parameters<typeof runOutcome>[0]>) =>
    runOutcome({
      stopReason: null,
      workers: 2,
      refused: 0,
      firstRefusal: null,
      requests: 10,
      allLost: false,
      blocked: null,
      ...over,
    });

  it.each([
    [{}, "finished", null],
    [{ stopReason: "user" }, "aborted", null],
    [{ stopReason: "deadline" }, "aborted", null],
    [{ stopReason: "threshold" }, "aborted", null],
    [{ stopReason: "capacity" }, "finished", null],
    [{ stopReason: "script", blocked: "thread 0 blocked" }, "aborted", "thread 0 blocked"],
    [{ refused: 2, firstRefusal: "no such file" }, "failed", "no such file"],
    [{ refused: 1, firstRefusal: "no such file" }, "finished", null],
    [{ requests: 0, allLost: true }, "failed", "every worker of the run was lost"],
    [{ requests: 5, allLost: true }, "finished", null],
  ] as const)("ends %j as %s", (over, status, error) => {
    expect(outcome(over)).toEqual({ status, error });
  });

  it("writes the move with what it records, then tells the live feed once", async () => {
    const writes: Array<{ id: string; owner?: string; data: RunUpdate }> = [];
    const published: string[] = [];
    const runs = {
      update: async (id: string, data: RunUpdate) => {
        writes.push({ id, data });
      },
      updateOwned: async (id: string, owner: string, data: RunUpdate) => {
        writes.push({ id, owner, data });
      },
    };
    const lifecycle = new RunLifecycle(runs, async (id) => {
      published.push(id);
    });
    expect(await lifecycle.apply({ id: "r1", status: "running" }, "stop", { stopReason: "deadline" })).toBe(
      "stopping",
    );
    expect(writes.pop()).toEqual({ id: "r1", data: { status: "stopping", stopReason: "deadline" } });
    expect(published).toEqual(["r1"]);

    await lifecycle.apply({ id: "r2", status: "queued" }, "cancel", { stopReason: "cancelled" });
    const cancelled = writes.pop();
    expect(cancelled?.data).toMatchObject({ status: "aborted", stopReason: "cancelled" });
    expect(cancelled?.data.finishedAt).toBeInstanceOf(Date);

    // Inside a transaction: written with the transaction's writer, published only when told.
    const tx: Array<{ id: string; owner?: string; data: RunUpdate }> = [];
    const txRuns = {
      update: async (id: string, data: RunUpdate) => {
        tx.push({ id, data });
      },
      updateOwned: async (id: string, owner: string, data: RunUpdate) => {
        tx.push({ id, owner, data });
      },
    };
    await lifecycle.apply(
      { id: "r3", status: "stopping" },
      "end",
      { passed: true },
      {
        to: "aborted",
        writer: txRuns,
        owner: "m1",
      },
    );
    expect(tx).toEqual([{ id: "r3", owner: "m1", data: { passed: true, status: "aborted" } }]);
    expect(published).toEqual(["r1", "r2"]);
    await lifecycle.published("r3");
    expect(published).toEqual(["r1", "r2", "r3"]);

    await expect(lifecycle.apply({ id: "r4", status: "finished" }, "stop")).rejects.toThrow(
      "a run cannot stop from finished",
    );
    expect(writes).toEqual([]);
  });
});
