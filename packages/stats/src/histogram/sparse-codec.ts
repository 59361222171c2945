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

/** Reused for decoding: the master decodes thousands of histograms a second. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** Adds an encoded histogram into `target` without building an intermediate histogram. */
export function addEncodedHistogram(target: LatencyHistogram, encoded: string): void {
  walkEncoded(encoded, target.countsArrayLength, target);
}

let bucketCount = 0;

/**
 * Checks an encoded histogram from outside (the queue) without applying it: throws
 * HistogramFormatError for an unknown version, a truncated or overlong varint, or a bucket
 * outside the histogram; returns how many values it holds.
 */
export function checkEncodedHistogram(encoded: string): number {
  bucketCount ||= createMergeHistogram().countsArrayLength;
  return walkEncoded(encoded, bucketCount, null);
}

/** Reads every (bucket, count) pair; adds them into `target` unless it is null. Returns the total. */
function walkEncoded(encoded: string, length: number, target: LatencyHistogram | null): number {
  if (encoded === "") return 0;
  const needed = Math.ceil((encoded.length * 3) / 4);
  if (needed > scratch.length) scratch = Buffer.allocUnsafe(needed * 2);
  const bytes = scratch;
  const end = bytes.write(encoded, 0, "base64");
  if (bytes[0] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${bytes[0]}`);
  let offset = 1;
  let index = -1;
  let total = 0;
  let first = -1;
  while (offset < end) {
    // Two varints: the index delta, then the count (arithmetic, as counts may pass 2^32).
    let delta = 0;
    let scale = 1;
    let byte: number;
    do {
      if (offset >= end) throw new HistogramFormatError("truncated histogram");
      byte = bytes[offset++];
      delta += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80 && scale <= 2 ** 56);
    if (byte >= 0x80) throw new HistogramFormatError("varint too long");
    let count = 0;
    scale = 1;
    do {
      if (offset >= end) throw new HistogramFormatError("truncated histogram");
      byte = bytes[offset++];
      count += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80 && scale <= 2 ** 56);
    if (byte >= 0x80) throw new HistogramFormatError("varint too long");
    index += delta;
    if (index >= length) throw new HistogramFormatError(`bucket ${index} outside the histogram`);
    target?.addToCountAtIndex(index, count);
    total += count;
    if (first < 0) first = index;
  }
  if (target && first >= 0) {
    target.addToTotalCount(total);
    target.updateMinAndMax(target.valueFromIndex(first));
    target.updateMinAndMax(target.valueFromIndex(index));
  }
  return total;
}

export function decodeHistogram(encoded: string): LatencyHistogram {
  const histogram = createMergeHistogram();
  addEncodedHistogram(histogram, encoded);
  return histogram;
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
