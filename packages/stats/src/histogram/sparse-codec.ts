import { createMergeHistogram, type LatencyHistogram } from "./latency-histogram.js";

/**
 * The one place HDR histograms are encoded and decoded. The format lists only non-empty buckets
 * as (index delta, count) varints, so merging reads a few hundred numbers instead of inflating a
 * compressed array (see the stats-pipeline notes: compressed decode costs ~165 µs a histogram).
 *
 * Layout: version byte (1), then pairs of unsigned varints; base64 on the wire.
 */
const FORMAT_VERSION = 1;

export class HistogramFormatError extends Error {}

export function encodeHistogram(histogram: LatencyHistogram): string {
  if (histogram.totalCount === 0) return "";
  const bytes: number[] = [FORMAT_VERSION];
  const length = histogram.countsArrayLength;
  let previous = -1;
  for (let index = 0; index < length; index++) {
    const count = histogram.getCountAtIndex(index);
    if (count === 0) continue;
    writeVarint(bytes, index - previous);
    writeVarint(bytes, count);
    previous = index;
  }
  return Buffer.from(bytes).toString("base64");
}

/** Adds an encoded histogram into `target` without building an intermediate histogram. */
export function addEncodedHistogram(target: LatencyHistogram, encoded: string): void {
  if (encoded === "") return;
  const bytes = Buffer.from(encoded, "base64");
  if (bytes[0] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${bytes[0]}`);
  const cursor = { offset: 1 };
  const length = target.countsArrayLength;
  let index = -1;
  let total = 0;
  let first = -1;
  while (cursor.offset < bytes.length) {
    index += readVarint(bytes, cursor);
    const count = readVarint(bytes, cursor);
    if (index >= length) throw new HistogramFormatError(`bucket ${index} outside the histogram`);
    target.addToCountAtIndex(index, count);
    total += count;
    if (first < 0) first = index;
  }
  target.addToTotalCount(total);
  target.updateMinAndMax(target.valueFromIndex(first));
  target.updateMinAndMax(target.valueFromIndex(index));
}

export function decodeHistogram(encoded: string): LatencyHistogram {
  const histogram = createMergeHistogram();
  addEncodedHistogram(histogram, encoded);
  return histogram;
}

/** Merges several encoded histograms into one encoding. */
export function mergeEncodedHistograms(encoded: string[]): string {
  const nonEmpty = encoded.filter((e) => e !== "");
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? "";
  const histogram = createMergeHistogram();
  for (const e of nonEmpty) addEncodedHistogram(histogram, e);
  return encodeHistogram(histogram);
}

// Counts can pass 2^32 in long runs, so varints use arithmetic rather than 32-bit shifts.
function writeVarint(out: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function readVarint(bytes: Uint8Array, cursor: { offset: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (cursor.offset >= bytes.length) throw new HistogramFormatError("truncated histogram");
    const byte = bytes[cursor.offset++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
    if (scale > 2 ** 56) throw new HistogramFormatError("varint too long");
  }
}
