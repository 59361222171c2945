import type { StatsBatch } from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { batchProblem } from "./batch-check.js";
import { newWorker } from "./merge-state.js";

function stats(name = "hello", requests = 10) {
  const recorder = new RequestRecorder(name, "GET");
  for (let i = 0; i < requests; i++) recorder.record(1000, 200, 10, 10);
  return recorder.flush();
}

function batch(extra: Partial<StatsBatch> = {}): StatsBatch {
  return {
    runId: "r",
    workerId: "w",
    seq: 0,
    second: 0,
    final: false,
    vus: 1,
    dropped: 0,
    lostBatches: 0,
    elapsedMs: 1000,
    requests: [stats()],
    sentAt: 0,
    ...extra,
  };
}

const limits = { names: new Set(["hello", "other"]), maxSecond: 60 };
const problem = (b: StatsBatch) => batchProblem(b, newWorker("w", "w"), limits);

describe("batchProblem", () => {
  it("accepts what a real worker sends", () => {
    expect(problem(batch())).toBeNull();
    expect(problem(batch({ seq: 60, second: 60, requests: [stats(), stats("other", 0)] }))).toBeNull();
  });

  it.each([
    ["a second past the plan", batch({ second: 200_000 }), /past the run's planned end/],
    ["a seq far ahead of the watermark", batch({ seq: 3_000_000 }), /too far ahead/],
    ["an unknown request name", batch({ requests: [stats("nope")] }), /not in the scenario/],
    ["a name twice", batch({ requests: [stats(), stats()] }), /appears twice/],
    ["failures > requests", batch({ requests: [{ ...stats(), failures: 11 }] }), /more failures/],
    ["2^53-1 requests", batch({ requests: [{ ...stats(), requests: 2 ** 53 - 1 }] }), /requests in a second/],
    ["status 999", batch({ requests: [{ ...stats(), statusCodes: { "999": 1 } }] }), /not an HTTP status/],
    [
      "more statuses than requests",
      batch({ requests: [{ ...stats(), statusCodes: { "200": 11 } }] }),
      /more status codes/,
    ],
    [
      "an unknown histogram version",
      batch({ requests: [{ ...stats(), latency: { ...stats().latency, histogram: "AgE=" } }] }),
      /unknown histogram format 2/,
    ],
    [
      "a bucket outside the histogram",
      batch({
        requests: [
          {
            ...stats(),
            latency: {
              ...stats().latency,
              histogram: Buffer.from([1, 0xff, 0xff, 0x7f, 1]).toString("base64"),
            },
          },
        ],
      }),
      /outside the histogram/,
    ],
    [
      "a truncated histogram",
      batch({
        requests: [
          { ...stats(), latency: { ...stats().latency, histogram: Buffer.from([1, 5]).toString("base64") } },
        ],
      }),
      /truncated/,
    ],
    [
      "a histogram with more values than requests",
      batch({
        requests: [
          {
            ...stats("hello", 10),
            requests: 3,
            statusCodes: { "200": 3 },
            latency: { ...stats("hello", 10).latency, sumUs: 3000 },
          },
        ],
      }),
      /more values than requests/,
    ],
  ])("refuses %s", (_, b, message) => {
    expect(problem(b)).toMatch(message);
  });

  it("refuses batches after the worker's final one", () => {
    const worker = newWorker("w", "w");
    worker.finalSeq = 4;
    expect(batchProblem(batch({ seq: 5, second: 5 }), worker, limits)).toMatch(/after the worker's final/);
  });
});
