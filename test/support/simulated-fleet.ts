import { randomBytes } from "node:crypto";
import { type RequestStats, STATS_JOB, type StatsBatch, statsJobId, statsQueueName } from "@volley/protocol";
import { appendToPartition } from "@volley/worker";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import WebSocket from "ws";

/** One simulated worker: a socket that speaks the protocol, and the route the master gave it. */
export interface SimulatedWorker {
  workerId: string;
  socket: WebSocket;
  runId: string | null;
  /** The aggregator partition its batches go through (null: the run's queue). */
  route: string | null;
  /** stats-route messages received. */
  reroutes: number;
}

/**
 * Many workers in one process (hundreds, as `pnpm bench ingest` has them): each says hello,
 * beats, accepts the run and follows its stats routing; batches go wherever each is routed.
 */
export class SimulatedFleet {
  readonly workers: SimulatedWorker[] = [];
  private readonly redis: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly prefix: string,
    redisUrl: string,
  ) {
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.timer = setInterval(() => {
      for (const worker of this.workers) this.beat(worker);
    }, 1000);
  }

  static async connect(masterUrl: string, prefix: string, count: number): Promise<SimulatedFleet> {
    const fleet = new SimulatedFleet(prefix, process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    const tag = randomBytes(3).toString("hex");
    await Promise.all(Array.from({ length: count }, (_, i) => fleet.add(masterUrl, `sim-${tag}-${i}`)));
    return fleet;
  }

  private async add(masterUrl: string, workerId: string): Promise<void> {
    const socket = new WebSocket(`${masterUrl.replace(/^http/, "ws")}/ws/worker`);
    const worker: SimulatedWorker = { workerId, socket, runId: null, route: null, reroutes: 0 };
    this.workers.push(worker);
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === "start-run") {
        worker.runId = message.runId;
        worker.route = message.aggregator ?? null;
        socket.send(JSON.stringify({ type: "run-accepted", runId: message.runId }));
        this.beat(worker);
      } else if (message.type === "stats-route" && message.runId === worker.runId) {
        worker.route = message.aggregator;
        worker.reroutes++;
      }
    });
    socket.on("error", () => {});
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(
      JSON.stringify({
        type: "hello",
        workerId,
        name: workerId,
        host: "sim",
        threads: 1,
        cores: 1,
        version: "test",
        pid: 0,
        local: false,
        activeRunId: null,
      }),
    );
    this.beat(worker);
  }

  private beat(worker: SimulatedWorker): void {
    if (worker.socket.readyState !== WebSocket.OPEN) return;
    worker.socket.send(
      JSON.stringify({
        type: "heartbeat",
        state: worker.runId ? "running" : "ready",
        runId: worker.runId,
        vus: worker.runId ? 1 : 0,
        cpu: 1,
        machineCpu: 1,
        memoryMb: 40,
        eventLoopDelayMs: 1,
        ...(worker.runId && worker.route ? { aggregator: worker.route } : {}),
        sentAt: Date.now(),
      }),
    );
  }

  /** Each worker's batch for `second` (seq = second), pushed where the worker is routed now. */
  async push(
    second: number,
    requests: (worker: SimulatedWorker) => RequestStats[],
    final = false,
  ): Promise<void> {
    const byQueue = new Map<string, Array<{ name: string; data: StatsBatch; opts: object }>>();
    const appends: Array<Promise<boolean>> = [];
    for (const worker of this.workers) {
      if (!worker.runId) continue;
      const batch: StatsBatch = {
        runId: worker.runId,
        workerId: worker.workerId,
        seq: second,
        second,
        final,
        vus: 1,
        dropped: 0,
        lostBatches: 0,
        elapsedMs: (second + 1) * 1000,
        requests: requests(worker),
        sentAt: Date.now(),
      };
      if (worker.route !== null) {
        appends.push(appendToPartition(this.redis, this.prefix, worker.route, batch));
        continue;
      }
      const queue = statsQueueName(worker.runId);
      const jobs = byQueue.get(queue) ?? [];
      jobs.push({
        name: STATS_JOB,
        data: batch,
        opts: {
          jobId: statsJobId(batch.runId, batch.workerId, batch.seq),
          removeOnComplete: true,
          attempts: 300,
        },
      });
      byQueue.set(queue, jobs);
    }
    for (const [name, jobs] of byQueue) await this.queue(name).addBulk(jobs);
    await Promise.all(appends);
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.redis, prefix: this.prefix });
      this.queues.set(name, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const worker of this.workers) worker.socket.close();
    for (const queue of this.queues.values()) await queue.close().catch(() => {});
    this.redis.disconnect();
  }
}
