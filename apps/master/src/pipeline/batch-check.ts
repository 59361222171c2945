import { runGracefulStopMs, runPlannedMs, type Scenario, type StatsBatch } from "@volley/protocol";
import { DecodedHistograms, HistogramFormatError } from "@volley/stats";
import type { AggregatorWorker } from "./merge-state.js";

/** What the run's plan allows a batch to claim. */
export interface BatchLimits {
  /** Request names of the scenario. */
  names: ReadonlySet<string>;
  /**
   * A scripted run names its requests as it goes: names beyond `names` are taken while fewer than
   * `max` are known (`known` says whether one is), so a worker cannot grow the run without bound.
   */
  scriptNames?: { max: number; known(name: string): boolean; count(): number };
  /** Last second a batch may describe: the planned length, graceful stop and overrun, plus slack. */
  maxSecond: number;
}

/** Seqs a worker may run ahead of what the master has merged (its buffer holds 600). */
export const SEQ_WINDOW = 1024;
/** More than any worker sends in one second; a count past it is forged or corrupt. */
export const MAX_REQUESTS_PER_BATCH = 100_000_000;
const MAX_BYTES_PER_BATCH = 2 ** 48;
const MAX_VUS_PER_BATCH = 10_000_000;

function scriptName(limits: BatchLimits, name: string): boolean {
  const names = limits.scriptNames;
  return names !== undefined && (names.known(name) || names.count() < names.max);
}

/** Why `batch` cannot be merged, or null (checkBatch, the histograms read into a buffer of its own). */
export function batchProblem(
  batch: StatsBatch,
  worker: AggregatorWorker,
  limits: BatchLimits,
): string | null {
  return checkBatch(batch, worker, limits, new DecodedHistograms());
}

/**
 * Why `batch` cannot be merged, or null. Everything is checked before anything is applied, so a
 * batch is merged whole or not at all: the second and seq against the plan and the worker's
 * watermark, the arithmetic (failures <= requests, counts that add up), names of the scenario,
 * status codes, and every histogram decoded — once: the merge adds what `histograms` holds.
 */
export function checkBatch(
  batch: StatsBatch,
  worker: AggregatorWorker,
  limits: BatchLimits,
  /** Cleared, then holds the batch's histograms in the order of its requests. */
  histograms: DecodedHistograms,
): string | null {
  histograms.clear();
  if (batch.second > limits.maxSecond) {
    return `second ${batch.second} is past the run's planned end (second ${limits.maxSecond})`;
  }
  const watermark = worker.received.contiguousBelow;
  if (batch.seq >= watermark + SEQ_WINDOW) {
    return `seq ${batch.seq} is too far ahead of the worker's merged batches (${watermark})`;
  }
  if (worker.finalSeq !== null && batch.seq > worker.finalSeq) {
    return `seq ${batch.seq} comes after the worker's final batch ${worker.finalSeq}`;
  }
  if (batch.lostBatches > batch.seq + 1) return `lostBatches ${batch.lostBatches} exceeds the batches sent`;
  if (batch.vus > MAX_VUS_PER_BATCH || batch.dropped > MAX_REQUESTS_PER_BATCH) {
    return "vus or dropped beyond any plan";
  }
  const seen = new Set<string>();
  for (const stats of batch.requests) {
    const where = `request "${stats.name.slice(0, 80)}"`;
    if (!limits.names.has(stats.name) && !scriptName(limits, stats.name)) {
      return limits.scriptNames
        ? `${where} is one name too many (a scripted run has at most ${limits.scriptNames.max})`
        : `${where} is not in the scenario`;
    }
    if (seen.has(stats.name)) return `${where} appears twice`;
    seen.add(stats.name);
    if (stats.requests > MAX_REQUESTS_PER_BATCH) return `${where}: ${stats.requests} requests in a second`;
    if (stats.failures > stats.requests) return `${where}: more failures than requests`;
    if (stats.bytesIn > MAX_BYTES_PER_BATCH || stats.bytesOut > MAX_BYTES_PER_BATCH) {
      return `${where}: byte counts beyond any second`;
    }
    let statuses = 0;
    for (const [code, count] of Object.entries(stats.statusCodes)) {
      const status = Number(code);
      if (status < 100 || status > 599) return `${where}: status ${code} is not an HTTP status`;
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

/** The last second a batch of this load may describe: its plan, graceful stop, the overrun, slack. */
export function maxBatchSecond(scenario: Scenario): number {
  return Math.ceil((runPlannedMs(scenario) + runGracefulStopMs(scenario) + BATCH_SECOND_SLACK_MS) / 1000);
}
/** The scheduler stops a run 30 s past its plan and gives up 30 s later; then a minute of slack. */
const BATCH_SECOND_SLACK_MS = 120_000;
