import { describe, expect, it } from "vitest";
import { createMergeHistogram, createRecordingHistogram, HIGHEST_US } from "./latency-histogram.js";
import { addEncodedHistogram, DecodedHistograms, decodeHistogram, encodeHistogram } from "./sparse-codec.js";

function randomLatencies(n: number, seed: number): number[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  // Log-normal-ish spread from tens of µs to seconds, like real latencies.
  return Array.from({ length: n }, () => Math.round(Math.exp(4 + next() * 10)));
}

describe("sparse histogram codec", () => {
  it("round-trips exactly: every bucket count, the total and the percentiles", () => {
    const original = createRecordingHistogram();
    for (const v of randomLatencies(20_000, 7)) original.recordValue(v);
    original.recordValue(HIGHEST_US);
    const decoded = decodeHistogram(encodeHistogram(original));
    expect(decoded.totalCount).toBe(original.totalCount);
    for (let i = 0; i < original.countsArrayLength; i++) {
      if (original.getCountAtIndex(i) !== decoded.getCountAtIndex(i)) throw new Error(`bucket ${i} differs`);
    }
    for (const p of [1, 50, 90, 99, 99.9, 100]) {
      expect(decoded.getValueAtPercentile(p)).toBe(original.getValueAtPercentile(p));
    }
    // Min and max come back at bucket precision (exact ones travel beside the histogram).
    expect(decoded.highestEquivalentValue(decoded.maxValue)).toBe(
      original.highestEquivalentValue(original.maxValue),
    );
    expect(decoded.lowestEquivalentValue(decoded.minNonZeroValue)).toBe(
      original.lowestEquivalentValue(original.minNonZeroValue),
    );
  });

  it("encodes an empty histogram as an empty string and merges it as nothing", () => {
    const empty = createRecordingHistogram();
    expect(encodeHistogram(empty)).toBe("");
    const target = createMergeHistogram();
    addEncodedHistogram(target, "");
    expect(target.totalCount).toBe(0);
  });

  it("merging encodings equals recording everything in one histogram", () => {
    const parts = [randomLatencies(5000, 1), randomLatencies(3000, 2), randomLatencies(1, 3)];
    const whole = createMergeHistogram();
    const encoded = parts.map((values) => {
      const h = createRecordingHistogram();
      for (const v of values) {
        h.recordValue(v);
        whole.recordValue(v);
      }
      return encodeHistogram(h);
    });
    const merged = createMergeHistogram();
    for (const e of encoded) addEncodedHistogram(merged, e);
    expect(encodeHistogram(merged)).toBe(encodeHistogram(whole));
  });

  it("read once into one buffer, histograms add into any number of targets as their encoding would", () => {
    const encoded = [randomLatencies(4000, 5), [], randomLatencies(700, 6)].map((values) => {
      const h = createRecordingHistogram();
      for (const v of values) h.recordValue(v);
      return encodeHistogram(h);
    });
    // A small buffer first, so reading grows it and keeps what was read before.
    const decoded = new DecodedHistograms(16);
    for (let round = 0; round < 2; round++) {
      decoded.clear();
      expect(encoded.map((e) => decoded.read(e))).toEqual([4000, 0, 700]);
      expect(decoded.size).toBe(3);
      const fromText = createMergeHistogram();
      for (const e of encoded) addEncodedHistogram(fromText, e);
      for (const target of [createMergeHistogram(), createMergeHistogram()]) {
        for (let i = 0; i < decoded.size; i++) decoded.addTo(target, i);
        expect(encodeHistogram(target)).toBe(encodeHistogram(fromText));
        expect([target.minNonZeroValue, target.maxValue, target.totalCount]).toEqual([
          fromText.minNonZeroValue,
          fromText.maxValue,
          fromText.totalCount,
        ]);
      }
    }
    expect(() => decoded.read(Buffer.from([1, 0x81]).toString("base64"))).toThrow(/truncated/);
  });

  it("keeps counts beyond 32 bits", () => {
    const big = createMergeHistogram();
    big.recordValueWithCount(1500, 2 ** 40 + 3);
    const decoded = decodeHistogram(encodeHistogram(big));
    expect(decoded.totalCount).toBe(2 ** 40 + 3);
  });

  it("is compact: about 3 base64 characters per non-empty bucket", () => {
    const h = createRecordingHistogram();
    for (const v of randomLatencies(1000, 11)) h.recordValue(v);
    let buckets = 0;
    for (let i = 0; i < h.countsArrayLength; i++) if (h.getCountAtIndex(i) > 0) buckets++;
    expect(encodeHistogram(h).length).toBeLessThan(buckets * 3.5);
  });

  it("rejects corrupt input", () => {
    expect(() => decodeHistogram(Buffer.from([9, 1, 1]).toString("base64"))).toThrow(
      /unknown histogram format/,
    );
    expect(() => decodeHistogram(Buffer.from([1, 0x81]).toString("base64"))).toThrow(/truncated/);
    expect(() => decodeHistogram(Buffer.from([1, 0xff, 0xff, 0x7f, 1]).toString("base64"))).toThrow(
      /outside/,
    );
  });
});
