import { describe, expect, it } from "vitest";
import { addHistogram, createMergeHistogram, createRecordingHistogram } from "./latency-histogram.js";
import { valuesAtPercentiles } from "./percentiles.js";

const PERCENTILES = [0, 1, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

/** A deterministic spread of latencies: mostly near `around`, a long tail, repeats. */
function fill(
  histogram: ReturnType<typeof createMergeHistogram>,
  values: number,
  around: number,
  seed: number,
) {
  let x = seed;
  for (let i = 0; i < values; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const r = x / 2 ** 31;
    histogram.recordValue(Math.max(1, Math.round(around * Math.exp((r - 0.5) * 4))));
  }
}

describe("valuesAtPercentiles", () => {
  it("gives exactly what getValueAtPercentile gives, for merge and recording histograms", () => {
    for (const [values, around, seed] of [
      [1, 20_000, 1],
      [3, 500, 2],
      [100, 20_000, 3],
      [2000, 150_000, 4],
      [7919, 3, 5],
    ] as const) {
      for (const histogram of [createMergeHistogram(), createRecordingHistogram()]) {
        fill(histogram, values, around, seed);
        const expected = PERCENTILES.map((p) => histogram.getValueAtPercentile(p));
        expect(valuesAtPercentiles(histogram, PERCENTILES, [])).toEqual(expected);
      }
    }
  });

  it("reads 0 for every percentile of an empty histogram, and refuses percentiles out of order", () => {
    expect(valuesAtPercentiles(createMergeHistogram(), [50, 99], [7, 7])).toEqual([0, 0]);
    expect(() => valuesAtPercentiles(createMergeHistogram(), [99, 50], [])).toThrow(/ascend/);
  });
});

describe("addHistogram", () => {
  it("adds as JsHistogram.add does: counts, total, min and max; an empty source changes nothing", () => {
    const a = createMergeHistogram();
    const b = createMergeHistogram();
    fill(a, 500, 20_000, 7);
    fill(b, 300, 900_000, 8);
    const expected = createMergeHistogram();
    expected.add(a);
    expected.add(b);
    const target = createMergeHistogram();
    addHistogram(target, a);
    addHistogram(target, b);
    addHistogram(target, createMergeHistogram());
    expect(target.totalCount).toBe(expected.totalCount);
    expect([target.minNonZeroValue, target.maxValue]).toEqual([expected.minNonZeroValue, expected.maxValue]);
    expect(valuesAtPercentiles(target, PERCENTILES, [])).toEqual(
      PERCENTILES.map((p) => expected.getValueAtPercentile(p)),
    );
    const recording = createRecordingHistogram();
    fill(recording, 50, 100, 9);
    addHistogram(target, recording); // another kind: through JsHistogram.add
    expect(target.totalCount).toBe(expected.totalCount + 50);
  });
});
