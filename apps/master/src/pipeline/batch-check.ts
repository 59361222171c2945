import {
  type CombinedBatch,
  type CoveredBatch,
  type MetricKind,
  metricOfStatsName,
  runGracefulStopMs,
  runPlannedMs,
  type Scenario,
  type StatsBatch,
} from "@volley/protocol";
import { checkRequestStats, DecodedHistograms, MAX_REQUESTS_PER_BATCH } from "@volley/stats";
import type { AggregatorWorker } from "./merge-state.js";

export { MAX_REQUESTS_PER_BATCH };

/** What the run's plan allows a batch to claim. */
export interface BatchLimits {
  /** Request names of the scenario. */
  names: ReadonlySet<string>;
  /**
   * A scripted run names its requests as it goes: names beyond `names` are taken while fewer than
   * `max` are known (`known` says whether one is), so a worker cannot grow the run without bound.
   */
  scriptNames?: { max: number; known(name: string): boolean; count(): number };
  /** A scripted run's custom metrics: why one cannot be taken (another type, one too many), or null. */
  metricProblem?: (metric: { name: string; kind: MetricKind }) => string | null;
  /** Last second a batch may describe: the planned length, graceful stop and overrun, plus slack. */
  maxSecond: number;
}

/** Seqs a worker may run ahead of what the master has merged (its buffer holds 600). */
export const SEQ_WINDOW = 1024;
const MAX_VUS_PER_BATCH = 10_000_000;

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
  return (
    secondProblem(batch.second, limits) ??
    coverProblem(batch, worker) ??
    (batch.vus > MAX_VUS_PER_BATCH || batch.dropped > MAX_REQUESTS_PER_BATCH
      ? "vus or dropped beyond any plan"
      : checkRequestStats(batch.requests, histograms, { nameProblem: (name) => nameProblem(limits, name) }))
  );
}

/**
 * Why an aggregator's combined batch cannot be merged, or null: each batch it covers checked
 * as its own would be (`workers` finds their progress; a worker outside the run refuses the
 * group), then its measurements, their bounds scaled by the number of batches it adds up.
 */
export function checkCombinedBatch(
  batch: CombinedBatch,
  workers: (workerId: string) => AggregatorWorker | undefined,
  limits: BatchLimits,
  histograms: DecodedHistograms,
): string | null {
  histograms.clear();
  const second = secondProblem(batch.second, limits);
  if (second) return second;
  const covered = new Set<string>();
  for (const cover of batch.covers) {
    const worker = workers(cover.workerId);
    if (!worker) return `worker ${cover.workerId} has no part in the run`;
    const key = `${cover.workerId}\n${cover.seq}`;
    if (covered.has(key)) return `batch ${cover.seq} of ${cover.workerId} is covered twice`;
    covered.add(key);
    const problem = coverProblem(cover, worker);
    if (problem) return `worker ${cover.workerId}: ${problem}`;
  }
  const batches = batch.covers.length;
  if (batch.vus > MAX_VUS_PER_BATCH * batches || batch.dropped > MAX_REQUESTS_PER_BATCH * batches) {
    return "vus or dropped beyond any plan";
  }
  return checkRequestStats(batch.requests, histograms, {
    nameProblem: (name) => nameProblem(limits, name),
    batches,
  });
}

function secondProblem(second: number, limits: BatchLimits): string | null {
  return second > limits.maxSecond
    ? `second ${second} is past the run's planned end (second ${limits.maxSecond})`
    : null;
}

/** The seq against the worker's watermark and final batch, and the counts a batch carries alone. */
function coverProblem(
  cover: Pick<CoveredBatch, "seq" | "lostBatches">,
  worker: AggregatorWorker,
): string | null {
  const watermark = worker.received.contiguousBelow;
  if (cover.seq >= watermark + SEQ_WINDOW) {
    return `seq ${cover.seq} is too far ahead of the worker's merged batches (${watermark})`;
  }
  if (worker.finalSeq !== null && cover.seq > worker.finalSeq) {
    return `seq ${cover.seq} comes after the worker's final batch ${worker.finalSeq}`;
  }
  if (cover.lostBatches > cover.seq + 1) return `lostBatches ${cover.lostBatches} exceeds the batches sent`;
  return null;
}

function nameProblem(limits: BatchLimits, name: string): string | null {
  if (limits.names.has(name)) return null;
  const metric = metricOfStatsName(name);
  if (metric) {
    return limits.metricProblem
      ? limits.metricProblem(metric)
      : "is a custom metric, and no part of the run has a script";
  }
  const script = limits.scriptNames;
  if (script === undefined) return "is not in the scenario";
  return script.known(name) || script.count() < script.max
    ? null
    : `is one name too many (a scripted run has at most ${script.max})`;
}

/** The last second a batch of this load may describe: its plan, graceful stop, the overrun, slack. */
export function maxBatchSecond(scenario: Scenario): number {
  return Math.ceil((runPlannedMs(scenario) + runGracefulStopMs(scenario) + BATCH_SECOND_SLACK_MS) / 1000);
}
/** The scheduler stops a run 30 s past its plan and gives up 30 s later; then a minute of slack. */
const BATCH_SECOND_SLACK_MS = 120_000;
