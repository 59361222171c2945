import { formatIssues, STATS_QUEUE, statsBatchSchema } from "@volley/protocol";
import { UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { type BatchIntake, UnmergeableBatchError } from "./batch-intake.js";

export interface StatsConsumerOptions {
  connection: Redis;
  /** Key prefix of the queue in Redis. */
  prefix: string;
  intake: BatchIntake;
  log: Logger;
  /**
   * Jobs held at once. A job is held until the checkpoint that makes its batch durable (≤ about a
   * second), so this bounds the batches per second the master can take. @defaultValue 2000
   */
  concurrency?: number;
}

/**
 * Consumes the stats queue. A job completes only after its batch is durable, so a master killed
 * at any instant leaves the job to be delivered again (and recognised as a duplicate if needed).
 */
export class StatsConsumer {
  private readonly worker: Worker;
  consumed = 0;
  rejected = 0;

  constructor(options: StatsConsumerOptions) {
    this.worker = new Worker(
      STATS_QUEUE,
      async (job) => {
        const parsed = statsBatchSchema.safeParse(job.data);
        if (!parsed.success) {
          this.rejected++;
          const details = formatIssues(parsed.error)
            .map((i) => `${i.path}: ${i.message}`)
            .join("; ");
          options.log.warn({ jobId: job.id, details }, "malformed stats batch dropped");
          throw new UnrecoverableError(`malformed stats batch: ${details}`);
        }
        try {
          await options.intake.submit(parsed.data);
          this.consumed++;
        } catch (error) {
          if (error instanceof UnmergeableBatchError) {
            this.rejected++;
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
    this.worker.on("error", (error) => options.log.warn({ err: error.message }, "stats consumer error"));
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
