import { aggregatorEndedKey, aggregatorRunKeys, statsQueueName } from "@volley/protocol";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { AggregatorDirectory, type LiveAggregators } from "./aggregator-directory.js";
import type { BatchIntake } from "./batch-intake.js";
import { StatsConsumer } from "./stats-consumer.js";
import { drainStrandedStream } from "./stranded-stream.js";

export interface StatsConsumersOptions {
  /** For queue administration (depth, discarding a finished run's queue). */
  redis: Redis;
  /** For the consumers' blocking reads (maxRetriesPerRequest: null). */
  consumerConnection: Redis;
  prefix: string;
  intake: BatchIntake;
  log: Logger;
}

/**
 * One consumer per run this master owns, and only those: another master's runs, in the same
 * Redis, stay in their own queues for their owner.
 */
export class StatsConsumers {
  readonly counts = { consumed: 0, rejected: 0 };
  private readonly consumers = new Map<string, { consumer: StatsConsumer; queue: Queue }>();
  /** Runs whose consumer is being closed (and their queue discarded). */
  private readonly closing = new Set<string>();
  private readonly aggregators: AggregatorDirectory;
  /** Stranded streams being read, by partition and run. */
  private readonly draining = new Map<string, Promise<unknown>>();

  constructor(private readonly options: StatsConsumersOptions) {
    this.aggregators = new AggregatorDirectory(options.redis, options.prefix);
  }

  /** Aggregator partitions alive now (see AggregatorDirectory). */
  liveAggregators(): Promise<LiveAggregators> {
    return this.aggregators.live();
  }

  /** Starts consuming a run's queue (a run this master created or took over). */
  open(runId: string): void {
    if (this.consumers.has(runId)) return;
    const { redis, consumerConnection, prefix, intake, log } = this.options;
    const queue = new Queue(statsQueueName(runId), { connection: redis, prefix });
    queue.on("error", (error) => log.warn({ err: error.message, runId }, "stats queue error"));
    const consumer = new StatsConsumer({
      runId,
      connection: consumerConnection,
      prefix,
      intake,
      log,
      counts: this.counts,
    });
    this.consumers.set(runId, { consumer, queue });
  }

  /**
   * Stops consuming a run's queue. `discard` (once the run has its final status) deletes the
   * queue and what is left in it, even when the consumer was closed before: a batch that arrives
   * after the final status must not change the report, nor stay in Redis.
   */
  async close(runId: string, discard: boolean): Promise<void> {
    const entry = this.consumers.get(runId);
    if (!entry && !discard) return;
    this.consumers.delete(runId);
    this.closing.add(runId);
    try {
      if (entry) {
        await entry.consumer.close();
        await entry.queue.close();
      }
      if (discard) await this.discard(runId);
    } finally {
      this.closing.delete(runId);
    }
  }

  private async discard(runId: string): Promise<void> {
    const { redis, prefix, log } = this.options;
    // First: aggregators drop what they still hold of the run instead of sending it on.
    await redis.set(aggregatorEndedKey(prefix, runId), "1", "EX", 2 * 24 * 3600).catch(() => null);
    const queue = new Queue(statsQueueName(runId), { connection: redis, prefix });
    queue.on("error", (error) => log.warn({ err: error.message, runId }, "stats queue error"));
    try {
      const left = await queue.getJobCountByTypes("waiting", "delayed", "prioritized").catch(() => 0);
      if (left > 0) log.warn({ runId, batches: left }, "batches after the run ended discarded");
      await queue.obliterate({ force: true }).catch((error: Error) => {
        log.warn({ err: error.message, runId }, "could not delete the run's stats queue");
      });
    } finally {
      await queue.close();
    }
    // The aggregators' claims for the run: nothing of it can be merged any more.
    await redis.del(...Object.values(aggregatorRunKeys(prefix, runId))).catch(() => 0);
  }

  /**
   * Merges a run's batches left in the stream of a partition that died with no replacement (see
   * drainStrandedStream); in the background, once per partition and run.
   */
  drainPartition(partition: string, runId: string): void {
    const key = `${partition}\n${runId}`;
    if (this.draining.has(key)) return;
    const { redis, prefix, intake, log } = this.options;
    const drain = drainStrandedStream({ redis, prefix, intake, log }, partition, runId)
      .catch((error: Error) =>
        log.error({ runId, partition, err: error.message }, "could not read a dead aggregator's stream"),
      )
      .finally(() => this.draining.delete(key));
    this.draining.set(key, drain);
  }

  /** Whether this master reads the run's queue, or is still closing it. */
  consumes(runId: string): boolean {
    return this.consumers.has(runId) || this.closing.has(runId);
  }

  /** Batches in one run's queue not merged yet, and stranded ones still being read (0 when this master does not consume it). */
  async pending(runId: string): Promise<number> {
    const entry = this.consumers.get(runId);
    if (!entry) return 0;
    for (const key of this.draining.keys()) if (key.endsWith(`\n${runId}`)) return 1;
    const counts = await entry.queue.getJobCounts("waiting", "active", "delayed", "prioritized");
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  /** Batches waiting in the queues of this master's runs. */
  async depth(): Promise<number> {
    let total = 0;
    for (const { queue } of this.consumers.values()) {
      const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized");
      total += Object.values(counts).reduce((a, b) => a + b, 0);
    }
    return total;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.consumers.keys()].map((runId) => this.close(runId, false)));
  }
}
