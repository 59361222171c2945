import {
  AGGREGATOR_BEAT_MS,
  aggregatorIntakesKey,
  aggregatorStreamKey,
  aggregatorsKey,
  COMBINED_JOB,
  type CombinedBatch,
  combinedJobId,
  formatIssues,
  STATS_JOB_OPTIONS,
  statsBatchSchema,
  statsQueueName,
} from "@volley/protocol";
import { checkRequestStats, DecodedHistograms } from "@volley/stats";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { GroupAssembler } from "./group-assembler.js";
import { GroupLedger, memberOf } from "./group-ledger.js";
import type { ResolvedAggregatorOptions } from "./options.js";
import { ReleaseQueue } from "./release-queue.js";
import { StreamIntake } from "./stream-intake.js";

/** A batch taken into a group: what releasing its claim needs once it is acknowledged. */
interface TakenBatch {
  runId: string;
  group: string;
  member: string;
}

/** A run's queue unused this long is closed (its run ended, or moved to another master). */
const IDLE_QUEUE_MS = 60_000;

/**
 * One aggregator process: reads its partition's stream (the batches of the workers routed to it,
 * whatever their run), sends one combined batch per run and second into each run's queue, and
 * beats in Redis so that masters route workers to it.
 */
export class AggregatorNode {
  private readonly redis: Redis;
  private readonly blocking: Redis;
  private readonly intake: StreamIntake<TakenBatch>;
  private readonly assembler: GroupAssembler;
  private readonly releases: ReleaseQueue;
  private readonly runQueues = new Map<string, { queue: Queue; usedAt: number }>();
  /** One batch's histograms between its check and its merge (both synchronous). */
  private readonly histograms = new DecodedHistograms();
  private beatTimer: NodeJS.Timeout | null = null;
  /** Batches taken over from a consumer that died (or failed here), for the takeover log line. */
  private redelivered = 0;
  private takeoverLogged: NodeJS.Timeout | null = null;

  constructor(
    readonly options: ResolvedAggregatorOptions,
    private readonly log: Logger,
  ) {
    const { redisUrl, intakeRedisUrl, prefix, partition } = options;
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    // The partition's stream: in the master's Redis, or in one of its own.
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
    this.intake = new StreamIntake({
      redis: this.blocking,
      stream: aggregatorStreamKey(prefix, partition),
      maxHeld: options.concurrency,
      take: (data, takenOver) => this.take(data, takenOver),
      onAcknowledged: ({ runId, group, member }) => this.releases.add(runId, group, member),
      log,
    });
  }

  /** Starts reading the partition's stream, then beats: masters route to it once it reads. */
  async start(): Promise<void> {
    await this.intake.start();
    this.beatTimer = setInterval(() => this.beat(), AGGREGATOR_BEAT_MS);
    this.beat();
    this.log.info(
      {
        stream: aggregatorStreamKey(this.options.prefix, this.options.partition),
        intake: this.options.intakeRedisUrl ?? "the master's Redis",
      },
      "aggregator started",
    );
  }

  /**
   * Stops taking batches and sends the groups held. It stops beating but stays listed until its
   * beat goes stale: other processes may serve the same partition.
   */
  async close(): Promise<void> {
    if (this.beatTimer) clearInterval(this.beatTimer);
    if (this.takeoverLogged) clearTimeout(this.takeoverLogged);
    await this.intake.stop();
    await this.releases.flush();
    this.releases.stop();
    await Promise.all([...this.runQueues.values()].map(({ queue }) => queue.close().catch(() => {})));
    this.redis.disconnect();
    this.blocking.disconnect();
  }

  /**
   * Checks a worker batch (everything but the run's plan, which the master checks) and groups it;
   * "drop" for one that can never be merged.
   */
  private async take(data: string, takenOver: boolean): Promise<TakenBatch | "drop"> {
    if (takenOver) this.tookOver();
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      json = undefined;
    }
    const parsed = statsBatchSchema.safeParse(json);
    const problem = parsed.success
      ? checkRequestStats(parsed.data.requests, this.histograms)
      : formatIssues(parsed.error)
          .map((i) => `${i.path}: ${i.message}`)
          .join("; ");
    if (problem !== null || !parsed.success) {
      this.log.warn({ problem }, "malformed stats batch dropped");
      return "drop";
    }
    const { runId, workerId, seq } = parsed.data;
    const group = await this.assembler.add(parsed.data, this.histograms);
    // Its run has ended: acknowledged, and its claim (none was made) needs no release.
    if (group === null) return "drop";
    return { runId, group, member: memberOf(workerId, seq) };
  }

  /** A batch another consumer held (it died), or that failed here: said once per burst, not per batch. */
  private tookOver(): void {
    this.redelivered++;
    if (this.takeoverLogged) return;
    this.log.info({ batches: this.redelivered }, "took over batches held by an aggregator that stopped");
    // Then quiet for 10 s: a takeover comes in bursts of hundreds.
    this.takeoverLogged = setTimeout(() => {
      this.takeoverLogged = null;
    }, 10_000);
  }

  private async send(batch: CombinedBatch): Promise<void> {
    await this.queueOf(batch.runId).add(COMBINED_JOB, batch, {
      ...STATS_JOB_OPTIONS,
      jobId: combinedJobId(batch.runId, batch.group),
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
    // The intake first: a master that sees the partition live must know where its stream is.
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
