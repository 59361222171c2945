import type { StatsBatch } from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { cumulativeFromRows, newWorker, parseMergeState, workerFromState } from "./merge-state.js";
import { RunAggregator } from "./run-aggregator.js";

const START = 1_000_000;

function batch(workerId: string, second: number, requests: number, final = false): StatsBatch {
  const recorder = new RequestRecorder("hello", "GET");
  for (let i = 0; i < requests; i++)
    recorder.record(1000 + i * 10, 200, 10, 5, i % 10 === 9 ? "status" : undefined);
  return {
    runId: "r1",
    workerId,
    seq: second,
    second,
    final,
    vus: 2,
    dropped: 0,
    lostBatches: 0,
    elapsedMs: (second + 1) * 1000,
    requests: requests ? [recorder.flush()] : [],
    sentAt: 0,
  };
}

function aggregator(): RunAggregator {
  return new RunAggregator({
    runId: "r1",
    startAt: START,
    requestOrder: ["hello"],
    maxSecond: 100,
    workers: [newWorker("a", "a"), newWorker("b", "b")],
  });
}

describe("RunAggregator", () => {
  it("never turns counts into rates over a near-zero duration when its workers are lost", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 10));
    agg.accept(batch("b", 0, 20));
    agg.accept(batch("a", 1, 10));
    agg.markLost("a");
    agg.markLost("b");
    agg.closeReady(START + 10_000);
    expect(agg.isComplete).toBe(true);
    // Nobody sent a final batch, but two seconds were merged: the rates are over those.
    expect(agg.durationS()).toBe(2);
    expect(agg.summary().total.rps).toBe(20);
    expect(agg.takeCheckpoint()?.run).toMatchObject({ durationS: 2, rps: 20 });

    const empty = aggregator();
    empty.markLost("a");
    empty.markLost("b");
    expect(empty.durationS()).toBe(0);
    expect(empty.summary().total.rps).toBe(0);
  });

  it("closes a second once every live worker delivered it, and merges it into the totals", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 10));
    expect(agg.closeReady(START + 1500)).toEqual([]);
    agg.accept(batch("b", 0, 20));
    const [second] = agg.closeReady(START + 1500);
    expect(second.point).toMatchObject({ t: 0, rps: 30, errorsPerSec: 3, vus: 4 });
    expect(second.summary.total.requests).toBe(30);
    expect(agg.closedThrough).toBe(0);
  });

  it("closes a second without a slow worker after the grace period; its batch is merged late, exactly", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 10));
    expect(agg.closeReady(START + 5000)).toEqual([]);
    expect(agg.closeReady(START + 6001).map((s) => s.point.rps)).toEqual([10]);
    agg.accept(batch("b", 0, 7));
    expect(agg.cumulative.total().requests).toBe(17);
    const checkpoint = agg.takeCheckpoint();
    expect(checkpoint?.late).toContainEqual({ name: "", second: 0, requests: 7, failures: 0 });
  });

  it("recognises a redelivered batch", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 10));
    expect(agg.isDuplicate({ workerId: "a", seq: 0 })).toBe(true);
    agg.accept(batch("a", 0, 10));
    agg.accept(batch("b", 0, 1));
    agg.closeReady(START + 1500);
    expect(agg.cumulative.total().requests).toBe(11);
  });

  it("is complete once every worker sent its final batch or is lost, and every second is merged", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 5, true));
    agg.accept(batch("b", 0, 5));
    agg.closeReady(START + 1500);
    expect(agg.isComplete).toBe(false);
    agg.markLost("b");
    expect(agg.isComplete).toBe(true);
    expect(agg.workerUpdates().map((w) => [w.workerId, w.update.status, w.update.requests])).toEqual([
      ["a", "finished", 5],
      ["b", "lost", 5],
    ]);
  });

  it("a lost worker whose every batch arrives after all finished, and is not lost again", () => {
    // A master restart: the worker was given up while its batches waited in the queue.
    const agg = aggregator();
    agg.accept(batch("a", 0, 5));
    agg.markLost("a");
    agg.accept(batch("a", 2, 5, true));
    expect(agg.workerUpdates()[0].update.status).toBe("lost"); // second 1 is still missing
    agg.accept(batch("a", 1, 5));
    expect(agg.workerUpdates()[0].update.status).toBe("finished");
    agg.markLost("a");
    expect(agg.workerUpdates()[0].update).toMatchObject({ status: "finished", requests: 15 });
  });

  it("a checkpoint holds everything needed to rebuild the aggregator after a crash", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 10));
    agg.accept(batch("b", 0, 20));
    agg.closeReady(START + 1500);
    agg.accept(batch("a", 1, 4));
    const checkpoint = agg.takeCheckpoint();
    if (!checkpoint) throw new Error("expected a checkpoint");
    expect(checkpoint.seconds.map((r) => [r.name, r.second, r.requests])).toEqual([
      ["", 0, 30],
      ["hello", 0, 30],
    ]);
    // Rebuild from what the checkpoint wrote, as StatsPipeline.load does.
    const state = parseMergeState(String(checkpoint.run.mergeState));
    const cumulative = cumulativeFromRows({ dropped: 0 }, checkpoint.aggregates);
    const rebuilt = new RunAggregator({
      runId: "r1",
      startAt: START,
      requestOrder: ["hello"],
      maxSecond: 100,
      workers: ["a", "b"].map((id) => workerFromState(id, id, state.workers[id])),
      closedThrough: Number(checkpoint.run.closedThrough),
      cumulative,
      open: state.open,
    });
    expect(rebuilt.isDuplicate({ workerId: "a", seq: 1 })).toBe(true);
    expect(rebuilt.isDuplicate({ workerId: "b", seq: 1 })).toBe(false);
    rebuilt.accept(batch("b", 1, 6, true));
    rebuilt.accept(batch("a", 2, 0, true));
    const seconds = rebuilt.closeReady(START + 10_000);
    expect(seconds.map((s) => [s.point.t, s.point.rps])).toEqual([
      [1, 10],
      [2, 0],
    ]);
    expect(rebuilt.isComplete).toBe(true);
    expect(rebuilt.cumulative.total().requests).toBe(40);
  });

  it("a failed checkpoint gives its rows back to the next one", () => {
    const agg = aggregator();
    agg.accept(batch("a", 0, 1));
    agg.accept(batch("b", 0, 1));
    agg.closeReady(START + 1500);
    const first = agg.takeCheckpoint();
    if (!first) throw new Error("expected a checkpoint");
    expect(agg.takeCheckpoint()).toBeNull();
    agg.restore(first);
    expect(agg.takeCheckpoint()?.seconds).toHaveLength(2);
  });

  it("resumes from a checkpoint holding seconds no plan allows without walking up to them", () => {
    const worker = newWorker("a", "a");
    worker.received.add(3_000_000);
    const started = Date.now();
    const rebuilt = new RunAggregator({
      runId: "r1",
      startAt: START,
      requestOrder: ["hello"],
      maxSecond: 10,
      workers: [worker],
      open: [{ second: 200_000, vus: 1, dropped: 0, requests: [] }],
    });
    const closed = rebuilt.closeReady(START + 1_000_000_000);
    expect(closed.length).toBeLessThanOrEqual(11);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
