import { countsOf, createMergeHistogram, type LatencyHistogram } from "./latency-histogram.js";

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

/**
 * The histograms of one stats batch, read once into one reused buffer: the master checks a batch
 * from the queue whole, then adds its histograms wherever they go without decoding them again, and
 * without allocating per histogram (typed arrays per histogram cost more in GC than a second read).
 */
export class DecodedHistograms {
  private buffer: Float64Array;
  /** Where each histogram's pairs start in `buffer`, then where the last one ends. */
  private readonly starts: number[] = [0];
  private readonly totals: number[] = [];
  /** Histograms of another shape that belong to an entry (a request's phases), read apart. */
  private extras: DecodedHistograms | null = null;
  /** By entry (index of its latency): where its extra histograms start among `extras`. */
  private readonly extraFirst = new Map<number, number>();

  /** `capacity`: numbers (two per bucket) before the buffer grows (it doubles, and stays grown). */
  constructor(capacity = 1024) {
    this.buffer = new Float64Array(capacity);
  }

  get size(): number {
    return this.totals.length;
  }

  clear(): void {
    this.starts.length = 1;
    this.totals.length = 0;
    this.extras?.clear();
    this.extraFirst.clear();
  }

  /**
   * Reads one more encoded histogram from outside (the queue) and returns how many values it holds;
   * throws HistogramFormatError for an unknown version, a truncated or overlong varint, or a bucket
   * outside the histogram (`length` buckets: a latency histogram's unless given).
   */
  read(encoded: string, length?: number): number {
    const offset = this.starts[this.starts.length - 1];
    let end = offset;
    let total = 0;
    if (encoded !== "") {
      bucketCount ||= createMergeHistogram().countsArrayLength;
      // Read straight into the buffer: room for as many numbers as the text could hold.
      const room = offset + maxNumbers(encoded);
      if (room > this.buffer.length) {
        const grown = new Float64Array(Math.max(this.buffer.length * 2, room));
        grown.set(this.buffer.subarray(0, offset));
        this.buffer = grown;
      }
      end = offset + readPairs(encoded, length ?? bucketCount, this.buffer, offset);
      total = lastTotal;
    }
    this.starts.push(end);
    this.totals.push(total);
    return total;
  }

  /**
   * Reads a histogram of `length` buckets that belongs to the entry whose latency is read next
   * (a request's phases, checked before its latency), kept apart so that entries keep their
   * indexes; returns how many values it holds, as `read` does.
   */
  readExtra(encoded: string, length: number): number {
    this.extras ??= new DecodedHistograms(256);
    if (!this.extraFirst.has(this.size)) this.extraFirst.set(this.size, this.extras.size);
    return this.extras.read(encoded, length);
  }

  /** Adds entry `index`'s `k`th extra histogram into `target`; false when none was read for it. */
  addExtraTo(target: LatencyHistogram, index: number, k: number): boolean {
    const first = this.extraFirst.get(index);
    if (first === undefined || this.extras === null) return false;
    this.extras.addTo(target, first + k);
    return true;
  }

  /** Adds the `index`th histogram read into `target`, as addEncodedHistogram would. */
  addTo(target: LatencyHistogram, index: number): void {
    addPairs(target, this.buffer, this.starts[index], this.starts[index + 1], this.totals[index]);
  }
}

let bucketCount = 0;

/**
 * Calls `visit` with each non-empty bucket of an encoded histogram (its index, its count), without
 * building a histogram: for readers that only count where values fall (the latency heatmap).
 */
export function forEachEncodedBucket(encoded: string, visit: (index: number, count: number) => void): void {
  if (encoded === "") return;
  bucketCount ||= createMergeHistogram().countsArrayLength;
  const used = readPairs(encoded, bucketCount, scratchPairs(encoded), 0);
  for (let i = 0; i < used; i += 2) visit(pairs[i], pairs[i + 1]);
}

/** Adds an encoded histogram into `target` without building an intermediate histogram. */
export function addEncodedHistogram(target: LatencyHistogram, encoded: string): void {
  if (encoded === "") return;
  const used = readPairs(encoded, target.countsArrayLength, scratchPairs(encoded), 0);
  addPairs(target, pairs, 0, used, lastTotal);
}

/** Adds the pairs `from[start..end)` (bucket, count) holding `total` values into `target`. */
function addPairs(
  target: LatencyHistogram,
  from: Float64Array,
  start: number,
  end: number,
  total: number,
): void {
  if (end === start) return;
  const counts = countsOf(target);
  if (counts) {
    // No count can pass the total, so one check of the total stands for every bucket's.
    if (target.totalCount + total > Number.MAX_SAFE_INTEGER) throw new Error("histogram count overflow");
    for (let i = start; i < end; i += 2) counts[from[i]] += from[i + 1];
  } else {
    for (let i = start; i < end; i += 2) target.addToCountAtIndex(from[i], from[i + 1]);
  }
  target.addToTotalCount(total);
  target.updateMinAndMax(target.valueFromIndex(from[start]));
  target.updateMinAndMax(target.valueFromIndex(from[end - 2]));
}

// Reused while decoding (the master decodes thousands of histograms a second): the base64 bytes
// (and a plain Uint8Array view of them: element reads through a Buffer's subclass cost more), the
// pairs read from them when they have no buffer of their own, and their total. Valid until the
// next readPairs.
let bytes = Buffer.allocUnsafe(64 * 1024);
let byteView = viewOf(bytes);
let pairs = new Float64Array(8192);
let lastTotal = 0;

function viewOf(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/** Most numbers an encoding's pairs can take: each pair takes two bytes at least. */
function maxNumbers(encoded: string): number {
  return Math.ceil((encoded.length * 3) / 4);
}

/** The shared pairs buffer, grown to hold `encoded`'s pairs. */
function scratchPairs(encoded: string): Float64Array {
  const needed = maxNumbers(encoded);
  if (needed > pairs.length) pairs = new Float64Array(needed * 2);
  return pairs;
}

/**
 * Reads every (bucket, count) pair of a non-empty encoding into `out` from `at` (room for
 * maxNumbers(encoded) numbers there); returns how many numbers.
 *
 * The loops check nothing per pair (a third of their time went to checks): indexes only grow, so
 * the last one stands for all, and a pair cut short reads the zero bytes after the end, which the
 * offset then shows. What they wrote before throwing is never used.
 */
function readPairs(encoded: string, length: number, out: Float64Array, at: number): number {
  const needed = maxNumbers(encoded) + 2;
  if (needed > bytes.length) {
    bytes = Buffer.allocUnsafe(needed * 2);
    byteView = viewOf(bytes);
  }
  const end = bytes.write(encoded, 0, "base64");
  const b = byteView;
  b[end] = 0;
  b[end + 1] = 0;
  if (b[0] !== FORMAT_VERSION) throw new HistogramFormatError(`unknown histogram format ${b[0]}`);
  let offset = 1;
  let index = -1;
  let total = 0;
  let used = at;
  while (offset < end) {
    // Two varints: the index delta, then the count. Most pairs are a byte each (a delta below 128,
    // a count below 128): the inner loop reads those and leaves at the first that is not, which
    // the general reader below takes (a call inside the inner loop cost it a third of its speed).
    while (offset < end) {
      const delta = b[offset];
      const count = b[offset + 1];
      if ((delta | count) >= 0x80) break;
      offset += 2;
      index += delta;
      out[used++] = index;
      out[used++] = count;
      total += count;
    }
    if (offset >= end) break;
    let delta = b[offset++];
    if (delta >= 0x80) {
      offset = readLongVarint(delta, offset, end);
      delta = varintValue;
    }
    let count = b[offset++];
    if (count >= 0x80) {
      offset = readLongVarint(count, offset, end);
      count = varintValue;
    }
    index += delta;
    out[used++] = index;
    out[used++] = count;
    total += count;
  }
  if (offset > end) throw new HistogramFormatError("truncated histogram");
  if (index >= length) throw new HistogramFormatError(`bucket ${index} outside the histogram`);
  lastTotal = total;
  return used - at;
}

/** The value of the last varint readLongVarint read. */
let varintValue = 0;

/**
 * Reads the rest of a varint of two bytes or more whose first byte (`first`, >= 0x80) came before
 * `offset`; sets varintValue and returns the offset after it.
 */
function readLongVarint(first: number, offset: number, end: number): number {
  let value = first & 0x7f;
  let scale = 0x80;
  let byte: number;
  let at = offset;
  do {
    if (at >= end) throw new HistogramFormatError("truncated histogram");
    byte = byteView[at++];
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
  } while (byte >= 0x80 && scale <= 2 ** 56);
  if (byte >= 0x80) throw new HistogramFormatError("varint too long");
  varintValue = value;
  return at;
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
