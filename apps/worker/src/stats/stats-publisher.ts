import {
  STATS_JOB,
  STATS_JOB_OPTIONS,
  type StatsBatch,
  statsJobId,
  statsQueueName,
  withTimeout,
} from "@volley/protocol";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { appendToPartition } from "./partition-append.js";

export interface StatsPublisherOptions {
  redisUrl: string;
  /** Key prefix of the queue (the master's). */
  prefix: string;
  log: Logger;
  /** Batches kept while Redis is away; at one a second, 600 is ten minutes. @defaultValue 600 */
  maxBuffered?: number;
}

/**
 * Pushes stats batches into the queue, in order, off the request path: `publish` only appends to
 * a bounded buffer. While Redis is away the buffer holds them; when it is full the oldest is
 * dropped and counted in the next batch's `lostBatches`, so the report says what was lost.
 */
export class StatsPublisher {
  private readonly redis: Redis;
  /** The run queue being published to. */
  private queue: { runId: string; queue: Queue } | null = null;
  /**
   * Each batch with the aggregator partition it was routed to when published (null: the run's
   * queue; a retry goes to the same place), and that partition's Redis when it is not the master's.
   */
  private readonly buffer: Array<{ batch: StatsBatch; partition: string | null; redis: string | null }> = [];
  /** The aggregator partition a run's batches go through (none: the run's own queue). */
  private readonly routes = new Map<string, { aggregator: string; redis: string | null }>();
  /** Connections to partitions' own Redis, by URL. */
  private readonly intakes = new Map<string, Redis>();
  private pumping = false;
  private closed = false;
  private readonly drainWaiters: Array<() => void> = [];
  private lastError = "";
  published = 0;
  lost = 0;

  constructor(private readonly options: StatsPublisherOptions) {
    // While Redis is away nothing is sent (see pump): batches wait in this buffer, not in ioredis's.
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
    this.redis.on("error", (error) => {
      if (error.message !== this.lastError)
        options.log.warn({ err: error.message }, "redis unavailable; buffering stats");
      this.lastError = error.message;
    });
  }

  get buffered(): number {
    return this.buffer.length;
  }

  /**
   * The aggregator partition a run's batches go through from now on (null: the run's queue), and
   * the Redis of its stream when it is not the master's.
   */
  route(runId: string, aggregator: string | null, redis: string | null = null): void {
    if (aggregator === null) this.routes.delete(runId);
    else this.routes.set(runId, { aggregator, redis });
  }

  /** The partition a run's batches go through, if any. */
  routeOf(runId: string): string | undefined {
    return this.routes.get(runId)?.aggregator;
  }

  publish(batch: StatsBatch): void {
    const route = this.routes.get(batch.runId);
    this.buffer.push({ batch, partition: route?.aggregator ?? null, redis: route?.redis ?? null });
    if (batch.final) this.routes.delete(batch.runId);
    const max = this.options.maxBuffered ?? 600;
    while (this.buffer.length > max) {
      this.buffer.shift();
      this.lost++;
      this.buffer[0].batch.lostBatches++;
    }
    void this.pump();
  }

  /** Resolves when every batch so far is in the queue, or after `timeoutMs` (false then). */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.buffer.length === 0 && !this.pumping) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.drainWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue?.queue.close().catch(() => {});
    this.redis.disconnect();
    for (const redis of this.intakes.values()) redis.disconnect();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    let delay = 100;
    while (this.buffer.length && !this.closed) {
      const entry = this.buffer[0];
      const { batch } = entry;
      try {
        const redis = this.connection(entry.redis);
        if (redis.status !== "ready") throw new Error(`redis is ${redis.status}`);
        await withTimeout<unknown>(
          entry.partition === null
            ? this.queueOf(batch.runId).add(STATS_JOB, batch, {
                ...STATS_JOB_OPTIONS,
                jobId: statsJobId(batch.runId, batch.workerId, batch.seq),
              })
            : appendToPartition(redis, this.options.prefix, entry.partition, batch),
          5000,
          "no answer from Redis within 5000 ms",
        );
        if (this.buffer[0] === entry) this.buffer.shift();
        this.published++;
        delay = 100;
        if (this.lastError) {
          this.options.log.info({ buffered: this.buffer.length }, "redis is back; sending buffered stats");
          this.lastError = "";
        }
      } catch (error) {
        if (!this.lastError)
          this.options.log.warn({ err: (error as Error).message }, "cannot queue stats; retrying");
        this.lastError ||= (error as Error).message;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 2000);
      }
    }
    this.pumping = false;
    if (this.buffer.length === 0) for (const waiter of this.drainWaiters.splice(0)) waiter();
  }

  /** The master's Redis, or a partition's own (connected on first use, kept for the process). */
  private connection(url: string | null): Redis {
    if (url === null) return this.redis;
    let redis = this.intakes.get(url);
    if (!redis) {
      redis = new Redis(url, { maxRetriesPerRequest: 1 });
      redis.on("error", (error) => {
        if (error.message !== this.lastError)
          this.options.log.warn({ err: error.message }, "aggregator's redis unavailable; buffering stats");
        this.lastError = error.message;
      });
      this.intakes.set(url, redis);
    }
    return redis;
  }

  /** Batches go out in order, so a run's queue is replaced only once the previous run's are sent. */
  private queueOf(runId: string): Queue {
    if (this.queue?.runId !== runId) {
      // The connection is shared: closing the old queue does not close it.
      void this.queue?.queue.close().catch(() => {});
      const queue = new Queue(statsQueueName(runId), {
        connection: this.redis,
        prefix: this.options.prefix,
        skipWaitingForReady: true,
      });
      queue.on("error", () => {});
      this.queue = { runId, queue };
    }
    return this.queue.queue;
  }
}
