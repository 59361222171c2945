import {
  AGGREGATOR_BEAT_MS,
  aggregatorIntakesKey,
  aggregatorQueueName,
  aggregatorsKey,
  COMBINED_JOB,
  type CombinedBatch,
  combinedJobId,
  formatIssues,
  statsBatchSchema,
  statsQueueName,
} from "@volley/protocol";
import { checkRequestStats, DecodedHistograms } from "@volley/stats";
import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { GroupAssembler } from "./group-assembler.js";
import { GroupLedger, memberOf } from "./group-ledger.js";
import type { ResolvedAggregatorOptions } from "./options.js";
import { ReleaseQueue } from "./release-queue.js";

/** A run's queue unused this long is closed (its run ended, or moved to another master). */
const IDLE_QUEUE_MS = 60_000;

/**
 * One aggregator process: consumes its partition's queue (the batches of the workers routed to
 * it, whatever their run), sends one combined batch per run and second into each run's queue,
 * and beats in Redis so that masters route workers to it.
 */
export class AggregatorNode {
  private readonly redis: Redis;
  private readonly blocking: Redis;
  private readonly consumer: Worker;
  private readonly assembler: GroupAssembler;
  private readonly releases: ReleaseQueue;
  private readonly runQueues = new Map<string, { queue: Queue; usedAt: number }>();
  /** One batch's histograms between its check and its merge (both synchronous). */
  private readonly histograms = new DecodedHistograms();
  private readonly beatTimer: NodeJS.Timeout;
  readonly counts = { consumed: 0, rejected: 0, redelivered: 0 };
  private takeoverLogged: NodeJS.Timeout | null = null;

  constructor(
    readonly options: ResolvedAggregatorOptions,
    private readonly log: Logger,
  ) {
    const { redisUrl, intakeRedisUrl, prefix, partition } = options;
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    // The partition's queue: in the master's Redis, or in one of its own.
    this.blocking = new Redis(intakeRedisUrl ?? redisUrl, { maxRetriesPerRequest: null });
    for (const connection of [this.redis, this.blocking]) {
      connection.on("error", (error) => log.warn({ err: error.message }, "redis unavailable"));
    }
    const ledger = new GroupLedger(this.redis, prefix);
    this.releases = new ReleaseQueue(ledger, log);
    this.assembler = new GroupAssembler({
      partition,
      ledger,
      send: (batch) => this.send(batch),
      windowMs: options.windowMs,
      log,
    });
    this.consumer = new Worker(aggregatorQueueName(partition), (job) => this.take(job), {
      connection: this.blocking,
      prefix,
      concurrency: options.concurrency,
      // A crashed aggregator's batches go to its replacement within seconds of its start.
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 1000,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 1000 },
    });
    this.consumer.on("completed", (job, group: string) => {
      const batch = job.data as { runId: string; workerId: string; seq: number };
      this.releases.add(batch.runId, group, memberOf(batch.workerId, batch.seq));
    });
    this.consumer.on("error", (error) => log.warn({ err: error.message }, "aggregator consumer error"));
    this.beatTimer = setInterval(() => this.beat(), AGGREGATOR_BEAT_MS);
    this.beat();
    log.info(
      { queue: aggregatorQueueName(partition), prefix, intake: intakeRedisUrl ?? "the master's Redis" },
      "aggregator started",
    );
  }

  /** Groups sent and worker batches they covered. */
  get sent(): { groups: number; batches: number; recovered: number } {
    return this.assembler.counts;
  }

  /** Stops taking batches, sends the groups held, and leaves the masters' routing. */
  async close(): Promise<void> {
    clearInterval(this.beatTimer);
    if (this.takeoverLogged) clearTimeout(this.takeoverLogged);
    await this.redis.zrem(aggregatorsKey(this.options.prefix), this.options.partition).catch(() => {});
    await this.consumer.close();
    await this.releases.flush();
    this.releases.stop();
    await Promise.all([...this.runQueues.values()].map(({ queue }) => queue.close().catch(() => {})));
    this.redis.disconnect();
    this.blocking.disconnect();
  }

  /** Checks a worker batch (everything but the run's plan, which the master checks) and groups it. */
  private async take(job: Job): Promise<string> {
    if (job.stalledCounter > 0) this.tookOver();
    const jobId = job.id;
    const parsed = statsBatchSchema.safeParse(job.data);
    const problem = parsed.success
      ? checkRequestStats(parsed.data.requests, this.histograms)
      : formatIssues(parsed.error)
          .map((i) => `${i.path}: ${i.message}`)
          .join("; ");
    if (problem !== null || !parsed.success) {
      this.counts.rejected++;
      this.log.warn({ jobId, problem }, "malformed stats batch dropped");
      throw new UnrecoverableError(`malformed stats batch: ${problem}`);
    }
    this.counts.consumed++;
    return this.assembler.add(parsed.data, this.histograms);
  }

  /** A batch a crashed aggregator held, back from the queue: said once per burst, not per batch. */
  private tookOver(): void {
    this.counts.redelivered++;
    if (this.takeoverLogged) return;
    this.takeoverLogged = setTimeout(() => {
      this.log.info(
        { batches: this.counts.redelivered },
        "took over batches held by an aggregator that stopped",
      );
      this.takeoverLogged = null;
    }, 1000);
  }

  private async send(batch: CombinedBatch): Promise<void> {
    await this.queueOf(batch.runId).add(COMBINED_JOB, batch, {
      jobId: combinedJobId(batch.runId, batch.group),
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 300,
      backoff: { type: "fixed", delay: 2000 },
    });
  }

  private queueOf(runId: string): Queue {
    let entry = this.runQueues.get(runId);
    if (!entry) {
      const queue = new Queue(statsQueueName(runId), { connection: this.redis, prefix: this.options.prefix });
      queue.on("error", (error) => this.log.warn({ err: error.message, runId }, "run queue error"));
      entry = { queue, usedAt: 0 };
      this.runQueues.set(runId, entry);
    }
    entry.usedAt = Date.now();
    return entry.queue;
  }

  private beat(): void {
    const now = Date.now();
    const { prefix, partition, intakeRedisUrl } = this.options;
    // The intake first: a master that sees the partition live must know where its queue is.
    const intakes = aggregatorIntakesKey(prefix);
    const intake =
      intakeRedisUrl === null
        ? this.redis.hdel(intakes, partition)
        : this.redis.hset(intakes, partition, intakeRedisUrl);
    intake.then(() => this.redis.zadd(aggregatorsKey(prefix), now, partition)).catch(() => {});
    for (const [runId, entry] of this.runQueues) {
      if (now - entry.usedAt < IDLE_QUEUE_MS) continue;
      this.runQueues.delete(runId);
      void entry.queue.close().catch(() => {});
    }
  }
}
