import { Int32Histogram } from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import {
  createMergeHistogram,
  createRecordingHistogram,
  HIGHEST_US,
  type LatencyHistogram,
  recordWhole,
} from "./latency-histogram.js";

/** Every bucket's count, the total, min and max: all recordValue leaves behind. */
function state(histogram: LatencyHistogram) {
  const counts: number[] = [];
  for (let i = 0; i < histogram.countsArrayLength; i++) counts.push(histogram.getCountAtIndex(i));
  return {
    counts,
    total: histogram.totalCount,
    min: histogram.minNonZeroValue,
    max: histogram.maxValue,
  };
}

/** Powers of two and their neighbours (bucket edges), a spread of ordinary values, the range's ends. */
function values(highest: number): number[] {
  const list = [0, 1, 2, 3, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, highest - 1, highest];
  for (let power = 1; 2 ** power <= highest; power++) list.push(2 ** power - 1, 2 ** power, 2 ** power + 1);
  let x = 7;
  for (let i = 0; i < 5000; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    list.push(Math.round((x / 2 ** 31) ** 4 * highest));
  }
  return list.filter((v) => v <= highest);
}

describe("recordWhole", () => {
  it("leaves a latency histogram exactly as recordValue does, bucket edges and the hour included", () => {
    for (const create of [createRecordingHistogram, createMergeHistogram]) {
      const fast = create();
      const reference = create();
      for (const value of values(HIGHEST_US)) {
        recordWhole(fast, value);
        reference.recordValue(value);
      }
      expect(state(fast)).toEqual(state(reference));
    }
  });

  it("does so for another shape too (the phases': 2 digits, a minute)", () => {
    const fast = new Int32Histogram(1, 60_000_000, 2);
    const reference = new Int32Histogram(1, 60_000_000, 2);
    for (const value of values(60_000_000)) {
      recordWhole(fast, value);
      reference.recordValue(value);
    }
    expect(state(fast)).toEqual(state(reference));
  });

  it("refuses a value past the range as recordValue does", () => {
    const histogram = createRecordingHistogram();
    expect(() => recordWhole(histogram, HIGHEST_US * 2)).toThrow(/outside of histogram covered range/);
    expect(() => recordWhole(histogram, 2 ** 33)).toThrow(/outside of histogram covered range/);
    expect(histogram.totalCount).toBe(0);
  });
});
