import { describe, expect, it } from "vitest";
import { latencyHeatmap } from "./latency-heatmap.js";
import { RequestRecorder } from "./request-recorder.js";

function second(latenciesUs: number[], name = "a") {
  const recorder = new RequestRecorder(name, "GET");
  for (const us of latenciesUs) recorder.record(us, 200, 0, 0);
  return recorder.flush().latency;
}

describe("latency heatmap", () => {
  it("counts every request once, in its second and its latency's bucket", () => {
    const heatmap = latencyHeatmap([
      { second: 2, latencies: [second([1000, 1000, 100_000]), second([1000], "b")] },
      { second: 0, latencies: [second([1000, 2000])] },
      { second: 1, latencies: [] },
    ]);
    expect(heatmap.seconds).toEqual([0, 2]);
    expect(heatmap.counts.map((row) => row.reduce((n, c) => n + c, 0))).toEqual([2, 4]);
    // From the fastest to the slowest: 1 ms in the first bucket, 100 ms in the last.
    expect(heatmap.edgesMs[0]).toBe(1);
    expect(heatmap.edgesMs.at(-1)).toBeCloseTo(100, 0);
    expect(heatmap.counts[1][0]).toBe(3);
    expect(heatmap.counts[1].at(-1)).toBe(1);
  });

  it("is empty for a run that measured nothing", () => {
    expect(latencyHeatmap([{ second: 0, latencies: [] }])).toEqual({ seconds: [], edgesMs: [], counts: [] });
  });
});
