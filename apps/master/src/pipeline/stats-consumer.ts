import { formatIssues, STATS_QUEUE, statsBatchSchema } from "@volley/protocol";
import { UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { type BatchCommitter, UnstorableBatchError } from "./batch-committer.js";

export interface StatsConsumerOptions {
  connection: Redis;
  /** Key prefix of the queue in Redis. */
  prefix: string;
  committer: BatchCommitter;
  log: Logger;
  /** Jobs processed at once; they are committed together. @defaultValue 200 */
  concurrency?: number;
}

/**
 * Consumes the stats queue. A job completes only after its batch is durably stored, so a master
 * killed at any instant leaves the job to be delivered again (and deduplicated).
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
          await options.committer.submit(parsed.data);
          this.consumed++;
        } catch (error) {
          if (error instanceof UnstorableBatchError) {
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
        concurrency: options.concurrency ?? 200,
        // A master that dies holding jobs gets them back quickly after it restarts.
        lockDuration: 10_000,
        stalledInterval: 5_000,
        maxStalledCount: 1000,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1000 },
      },
    );
    this.worker.on("error", (error) => options.log.error({ err: error }, "stats consumer error"));
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
