import { randomBytes } from "node:crypto";
import type { RunningMaster } from "@volley/master";
import {
  type MasterToWorker,
  type RequestStats,
  STATS_JOB,
  type StatsBatch,
  statsJobId,
  statsQueueName,
} from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import WebSocket from "ws";
import { waitFor } from "./processes.js";

export interface FakeWorkerOptions {
  masterUrl: string;
  queuePrefix: string;
  workerId?: string;
  token?: string;
  redisUrl?: string;
}

/**
 * A worker that speaks the protocol by hand: the test decides what it says over the socket and
 * what it pushes into the queue, so it can play a slow, stuck, lying or hostile worker.
 */
export class FakeWorker {
  readonly workerId: string;
  readonly received: MasterToWorker[] = [];
  readonly socket: WebSocket;
  private readonly redis: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly queuePrefix: string;
  private beating: NodeJS.Timeout | null = null;
  closeCode: number | null = null;

  constructor(options: FakeWorkerOptions) {
    this.workerId = options.workerId ?? `fake-${randomBytes(3).toString("hex")}`;
    this.socket = new WebSocket(`${options.masterUrl.replace(/^http/, "ws")}/ws/worker`, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    });
    this.socket.on("message", (data) => this.received.push(JSON.parse(data.toString())));
    this.socket.on("close", (code) => {
      this.closeCode = code;
    });
    this.socket.on("error", () => {});
    this.redis = new Redis(options.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
      maxRetriesPerRequest: 1,
    });
    this.queuePrefix = options.queuePrefix;
  }

  /**
   * A fake worker connected to an in-process master and listed there as ready: hello, a ready
   * heartbeat, then the wait for the registry.
   */
  static async join(
    master: RunningMaster,
    options: Omit<FakeWorkerOptions, "masterUrl" | "queuePrefix"> = {},
  ): Promise<FakeWorker> {
    const worker = await new FakeWorker({
      masterUrl: master.url,
      queuePrefix: master.services.config.queuePrefix,
      ...options,
    }).open();
    worker.hello();
    worker.heartbeat("ready", null);
    await waitFor(() => master.services.registry.ready().some((e) => e.info.id === worker.workerId), {
      what: `fake worker ${worker.workerId} to be ready`,
    });
    return worker;
  }

  async open(): Promise<this> {
    if (this.socket.readyState !== WebSocket.OPEN)
      await new Promise((resolve, reject) => {
        this.socket.once("open", resolve);
        this.socket.once("error", reject);
      });
    return this;
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  hello(workerId = this.workerId, activeRunId: string | null = null): void {
    this.send({
      type: "hello",
      workerId,
      name: workerId,
      host: "fake",
      threads: 1,
      cores: 1,
      version: "test",
      pid: 0,
      local: false,
      activeRunId,
    });
  }

  heartbeat(
    state: "ready" | "running" | "stopping",
    runId: string | null,
    extra: { clockUncertaintyMs?: number } = {},
  ): void {
    this.send({
      ...extra,
      type: "heartbeat",
      state,
      runId,
      vus: state === "ready" ? 0 : 1,
      cpu: 5,
      machineCpu: 5,
      memoryMb: 40,
      eventLoopDelayMs: 1,
      sentAt: Date.now(),
    });
  }

  /** Takes the next run the master starts on it, as a worker would: accepted, then running. */
  async acceptRun(): Promise<Extract<MasterToWorker, { type: "start-run" }>> {
    const start = await this.next("start-run");
    this.send({ type: "run-accepted", runId: start.runId });
    this.heartbeat("running", start.runId);
    return start;
  }

  /** Waits for the master's next message of `type` (one already received counts). */
  async next<T extends MasterToWorker["type"]>(
    type: T,
    timeoutMs = 10_000,
  ): Promise<Extract<MasterToWorker, { type: T }>> {
    return waitFor(
      () => {
        const index = this.received.findIndex((m) => m.type === type);
        return index < 0
          ? undefined
          : (this.received.splice(index, 1)[0] as Extract<MasterToWorker, { type: T }>);
      },
      { what: `a "${type}" message`, timeoutMs, intervalMs: 20 },
    );
  }

  /** Jobs in a run's queue, by state. */
  async jobCounts(runId: string): Promise<Record<string, number>> {
    const queue = new Queue(statsQueueName(runId), { connection: this.redis, prefix: this.queuePrefix });
    try {
      return await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "failed", "completed");
    } finally {
      await queue.close();
    }
  }

  /**
   * Pushes one batch into its run's queue, as the worker's StatsPublisher would (`queueOf`: into
   * another run's queue, as a lying worker could).
   */
  async push(
    batch: Partial<StatsBatch> & Pick<StatsBatch, "runId" | "seq">,
    queueOf: string = batch.runId,
  ): Promise<void> {
    const full: StatsBatch = {
      workerId: this.workerId,
      second: batch.seq,
      final: false,
      vus: 1,
      dropped: 0,
      lostBatches: 0,
      elapsedMs: (batch.seq + 1) * 1000,
      requests: [],
      sentAt: Date.now(),
      ...batch,
    };
    let queue = this.queues.get(queueOf);
    if (!queue) {
      queue = new Queue(statsQueueName(queueOf), { connection: this.redis, prefix: this.queuePrefix });
      this.queues.set(queueOf, queue);
    }
    await queue.add(STATS_JOB, full, {
      jobId: statsJobId(full.runId, full.workerId, full.seq),
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 3,
      backoff: { type: "fixed", delay: 200 },
    });
  }

  /**
   * Heartbeats as a worker does, every `intervalMs` until closed: against a master with a short
   * heartbeat timeout, a busy machine's slow step must not make it count this worker lost.
   */
  keepBeating(state: "ready" | "running", runId: string | null = null, intervalMs = 200): void {
    if (this.beating) clearInterval(this.beating);
    this.beating = setInterval(() => this.heartbeat(state, runId), intervalMs);
  }

  async close(): Promise<void> {
    if (this.beating) clearInterval(this.beating);
    this.socket.close();
    for (const queue of this.queues.values()) await queue.close().catch(() => {});
    this.redis.disconnect();
  }
}

/** One request name's statistics for one batch: `count` requests of `latencyUs` each. */
export function requestStats(name: string, count: number, latencyUs = 1000, status = 200): RequestStats {
  const recorder = new RequestRecorder(name, "GET");
  for (let i = 0; i < count; i++) recorder.record(latencyUs, status, 100, 50);
  return recorder.flush();
}
