import type { RequestStats } from "@volley/protocol";
import { type DecodedHistograms, HistogramFormatError } from "./histogram/sparse-codec.js";

/** More than any worker sends in one second; a count past it is forged or corrupt. */
export const MAX_REQUESTS_PER_BATCH = 100_000_000;
const MAX_BYTES_PER_BATCH = 2 ** 48;

export interface RequestCheckOptions {
  /** Why a name cannot be taken, or null (the plan's names; absent: any name). */
  nameProblem?: (name: string) => string | null;
  /** Worker batches these measurements add up (the bounds scale with them). @defaultValue 1 */
  batches?: number;
}

/**
 * Why a second's per-request measurements cannot be merged, or null: the arithmetic (failures <=
 * requests, counts that add up), status codes, names, and every histogram decoded — once: the
 * merge adds what `histograms` holds (cleared first, then one entry per request, in order).
 */
export function checkRequestStats(
  requests: readonly RequestStats[],
  histograms: DecodedHistograms,
  options: RequestCheckOptions = {},
): string | null {
  histograms.clear();
  const scale = options.batches ?? 1;
  const seen = new Set<string>();
  for (const stats of requests) {
    const where = `request "${stats.name.slice(0, 80)}"`;
    const nameProblem = options.nameProblem?.(stats.name);
    if (nameProblem) return `${where} ${nameProblem}`;
    if (seen.has(stats.name)) return `${where} appears twice`;
    seen.add(stats.name);
    if (stats.requests > MAX_REQUESTS_PER_BATCH * scale) {
      return `${where}: ${stats.requests} requests in a second`;
    }
    if (stats.failures > stats.requests) return `${where}: more failures than requests`;
    if (
      (stats.messagesSent ?? 0) > MAX_REQUESTS_PER_BATCH * scale ||
      (stats.messagesReceived ?? 0) > MAX_REQUESTS_PER_BATCH * scale
    ) {
      return `${where}: message counts beyond any second`;
    }
    // A hop is a request that was answered and followed, never a failure.
    if ((stats.redirects ?? 0) > stats.requests - stats.failures) {
      return `${where}: more redirects than answered requests`;
    }
    if (stats.bytesIn > MAX_BYTES_PER_BATCH * scale || stats.bytesOut > MAX_BYTES_PER_BATCH * scale) {
      return `${where}: byte counts beyond any second`;
    }
    let statuses = 0;
    for (const [code, count] of Object.entries(stats.statusCodes)) {
      const status = Number(code);
      if (!code.startsWith("grpc:") && (status < 100 || status > 599))
        return `${where}: status ${code} is not an HTTP status`;
      statuses += count;
    }
    if (statuses > stats.requests) return `${where}: more status codes than requests`;
    let errors = 0;
    for (const error of stats.errors) errors += error.count;
    if (errors > stats.failures) return `${where}: more errors than failures`;
    const { minUs, maxUs, sumUs } = stats.latency;
    if (stats.requests > 0 && (minUs > maxUs || sumUs > maxUs * stats.requests + stats.requests)) {
      return `${where}: latency figures that do not add up`;
    }
    let values: number;
    try {
      values = histograms.read(stats.latency.histogram);
    } catch (error) {
      if (error instanceof HistogramFormatError) return `${where}: ${error.message}`;
      throw error;
    }
    if (values > stats.requests) return `${where}: the histogram holds more values than requests`;
  }
  return null;
}
