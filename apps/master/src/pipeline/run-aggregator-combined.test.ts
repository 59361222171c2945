import type { CombinedBatch, StatsBatch } from "@volley/protocol";
import { RequestRecorder, StatsAggregate } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { newWorker } from "./merge-state.js";
import { RunAggregator } from "./run-aggregator.js";

const START = 1_000_000;

function batch(workerId: string, second: number, requests: number, final = false): StatsBatch {
  const recorder = new RequestRecorder("hello", "GET");
  for (let i = 0; i < requests; i++) recorder.record(1000 + i * 10, 200, 10, 5);
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
    requests: [recorder.flush()],
    sentAt: 0,
  };
}

/** What an aggregator sends for these batches of one second. */
function combined(group: string, batches: StatsBatch[]): CombinedBatch {
  const stats = new StatsAggregate();
  for (const b of batches) stats.add(b.requests, b.dropped);
  return {
    runId: "r1",
    partition: "p",
    group,
    second: batches[0].second,
    covers: batches.map((b) => ({
      workerId: b.workerId,
      seq: b.seq,
      final: b.final,
      vus: b.vus,
      lostBatches: b.lostBatches,
      elapsedMs: b.elapsedMs,
      requests: b.requests[0].requests,
    })),
    vus: batches.reduce((sum, b) => sum + b.vus, 0),
    dropped: 0,
    requests: stats.toStats(),
    sentAt: 0,
  };
}

function aggregator(): RunAggregator {
  return new RunAggregator({
    runId: "r1",
    startAt: START,
    requestOrder: ["hello"],
    maxSecond: 100,
    workers: ["a", "b", "c"].map((id) => newWorker(id, id)),
  });
}

describe("RunAggregator with aggregators' groups", () => {
  it("merges a group as the batches it covers, and a copy of it not at all", () => {
    const agg = aggregator();
    const group = combined("p.1", [batch("a", 0, 10), batch("b", 0, 20)]);
    expect(agg.combinedState(group)).toBe("new");
    expect(agg.combinedProblem(group)).toBeNull();
    agg.acceptCombined(group);
    agg.accept(batch("c", 0, 5)); // a worker routed straight to the run's queue
    expect(agg.combinedState(group)).toBe("duplicate");
    agg.acceptCombined(group);
    const [second] = agg.closeReady(START + 1000);
    expect(second.point.rps).toBe(35);
    expect(second.point.vus).toBe(6);
    expect(second.workers.map((w) => w.requests)).toEqual([10, 20, 5]);
  });

  it("ends a worker with a final batch a group covers, and counts a late group into the totals", () => {
    const agg = aggregator();
    agg.acceptCombined(combined("p.1", [batch("a", 0, 10, true), batch("b", 0, 10, true)]));
    agg.accept(batch("c", 0, 10));
    agg.closeReady(START + 1000);
    // c's second batch comes through an aggregator after its second closed (a late group).
    agg.closeReady(START + 10_000);
    agg.acceptCombined(combined("p.2", [batch("c", 1, 7, true)]));
    agg.closeReady(START + 10_000);
    expect(agg.isComplete).toBe(true);
    expect(agg.summary().total.requests).toBe(37);
  });

  it("refuses a group that overlaps one merged before, or covers a batch twice, or names an outsider", () => {
    const agg = aggregator();
    agg.acceptCombined(combined("p.1", [batch("a", 0, 10)]));
    expect(agg.combinedState(combined("p.2", [batch("a", 0, 10), batch("b", 0, 10)]))).toBe("overlap");
    expect(agg.combinedProblem(combined("p.3", [batch("b", 1, 1), batch("b", 1, 1)]))).toMatch(
      /covered twice/,
    );
    expect(agg.combinedProblem(combined("p.4", [batch("z", 1, 1)]))).toMatch(/worker z has no part/);
    const forged = combined("p.5", [batch("c", 1, 1)]);
    forged.requests[0].failures = 5;
    expect(agg.combinedProblem(forged)).toMatch(/more failures than requests/);
  });
});
