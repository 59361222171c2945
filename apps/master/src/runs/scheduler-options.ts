import type { Database } from "@volley/db";
import type { LiveMessage, RunDetail } from "@volley/protocol";
import type { Logger } from "pino";
import type { LiveAggregators } from "../pipeline/aggregator-directory.js";
import type { StatsPipeline } from "../pipeline/stats-pipeline.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import type { RunLease } from "./run-lease.js";

export interface RunSchedulerOptions {
  db: Database;
  registry: WorkerRegistry;
  pipeline: StatsPipeline;
  log: Logger;
  lease: RunLease;
  /** Consumes the stats of the runs this master owns, and only those. */
  ingest: RunIngest;
  publish: (message: LiveMessage) => void;
  /** Time between accepting a run and its common start, for workers to spawn threads. @defaultValue 1500 */
  startDelayMs?: number;
  /** A worker of a run that is neither connected nor done for this long is lost. @defaultValue 15000 */
  absentGraceMs?: number;
  /** How long a new run waits for workers still finishing the previous one. @defaultValue 10000 */
  finishingWaitMs?: number;
  /** Extra time past the planned end before workers are told again to stop, then given up on. @defaultValue 30000 */
  overrunMs?: number;
  /** The master's environment values a run's `env` may fall back on (the operator's allow-list). @defaultValue none */
  masterEnv?: Record<string, string>;
  /** Hears each run this master ended, with its final report (webhooks). */
  onRunEnded?: (run: RunDetail) => void;
}

export interface RunIngest {
  open(runId: string): void;
  /** Aggregator partitions alive now, for routing workers (empty: straight into the run's queue). */
  liveAggregators(): Promise<LiveAggregators>;
  /** `discard`: the run has its final status; what is left in its queue must not count. */
  close(runId: string, discard: boolean): Promise<void>;
  /** Reads a run's batches left in a dead aggregator partition's stream (no live one to take them). */
  drainPartition(partition: string, runId: string): void;
  /** Batches in the run's queue not merged yet (waiting, delayed, or held by a consumer). */
  pending(runId: string): Promise<number>;
}
