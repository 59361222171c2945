import {
  COMBINED_JOB,
  combinedBatchSchema,
  formatIssues,
  statsBatchSchema,
  statsQueueName,
} from "@volley/protocol";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { type BatchIntake, UnmergeableBatchError } from "./batch-intake.js";

export interface StatsConsumerOptions {
  /** The run whose queue this consumes. */
  runId: string;
  connection: Redis;
  /** Key prefix of the queue in Redis. */
  prefix: string;
  intake: BatchIntake;
  log: Logger;
  /** Counts consumed and rejected batches (shared by every run's consumer, for /metrics). */
  counts: { consumed: number; rejected: number };
  /**
   * Jobs held at once. A job is held until the checkpoint that makes its batch durable (≤ about a
   * second), so this bounds the batches per second the master can take. @defaultValue 2000
   */
  concurrency?: number;
}

/**
 * Consumes one run's stats queue. A job completes only after its batch is durable, so a master killed
 * at any instant leaves the job to be delivered again (and recognised as a duplicate if needed).
 */
export class StatsConsumer {
  private readonly worker: Worker;

  constructor(options: StatsConsumerOptions) {
    const { counts } = options;
    /**
     * Checks and merges a job's batch; resolves once it is durable. The batch is let go as soon
     * as it is merged (the job's data too): held through the wait for the checkpoint (about a
     * second), every batch in flight outlived V8's young generation and the copying cost the
     * master a sixth more CPU per batch (pnpm bench ingest).
     */
    const take = (job: Job): Promise<unknown> => {
      // A worker's batch, or an aggregator's group of them.
      const combined = job.name === COMBINED_JOB;
      const parsed = (combined ? combinedBatchSchema : statsBatchSchema).safeParse(job.data);
      if (!parsed.success || parsed.data.runId !== options.runId) {
        counts.rejected++;
        const details = parsed.success
          ? `runId: ${parsed.data.runId} in the queue of run ${options.runId}`
          : formatIssues(parsed.error)
              .map((i) => `${i.path}: ${i.message}`)
              .join("; ");
        options.log.warn({ jobId: job.id, details }, "malformed stats batch dropped");
        throw new UnrecoverableError(`malformed stats batch: ${details}`);
      }
      job.data = null;
      const batch = parsed.data;
      return "covers" in batch ? options.intake.submitCombined(batch) : options.intake.submit(batch);
    };
    this.worker = new Worker(
      statsQueueName(options.runId),
      async (job) => {
        try {
          await take(job);
          counts.consumed++;
        } catch (error) {
          if (error instanceof UnmergeableBatchError) {
            counts.rejected++;
            options.log.warn({ jobId: job.id, err: error.message }, "stats batch dropped");
            throw new UnrecoverableError(error.message);
          }
          throw error;
        }
      },
      {
        connection: options.connection,
        prefix: options.prefix,
        concurrency: options.concurrency ?? 2000,
        // A master that dies holding jobs gets them back quickly after it restarts.
        lockDuration: 10_000,
        stalledInterval: 5_000,
        maxStalledCount: 1000,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1000 },
      },
    );
    // A message, not the error object: pino would print the stack across the line as one field,
    // and an outage repeats it every second.
    this.worker.on("error", (error) =>
      options.log.warn({ err: error.message, runId: options.runId }, "stats consumer error"),
    );
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
