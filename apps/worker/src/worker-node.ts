import { availableParallelism } from "node:os";
import { checkMachineLimits } from "@volley/engine";
import {
  DEFAULT_REDIS_URL,
  type MasterToWorker,
  type ReleaseRows,
  type RunFiles,
  type StartRun,
  VOLLEY_VERSION,
  type Welcome,
  withTimeout,
} from "@volley/protocol";
import type { Logger } from "pino";
import { ClockSync } from "./connection/clock-sync.js";
import { MasterConnection } from "./connection/master-connection.js";
import type { ResolvedWorkerOptions } from "./options.js";
import { unpackRunFiles } from "./run/packed-files.js";
import { SliceRun } from "./run/slice-run.js";
import { StatsPublisher } from "./stats/stats-publisher.js";
import { SystemSampler } from "./system/system-sampler.js";

const CLOCK_PROBES = 5;
/** The machine's cores, sent with each heartbeat so the master can tell whose CPU was busy. */
const MACHINE_CORES = availableParallelism();
/** Longest wait for a finished slice's threads before the next run is refused. */
const PREVIOUS_RUN_MIN_WAIT_MS = 5000;

/**
 * A worker node: keeps a connection to the master, runs the slices it is given, and publishes
 * their statistics. A slice keeps running if the master goes away; the worker tells it which
 * run it is in when it is back.
 */
export class WorkerNode {
  private readonly connection: MasterConnection;
  private readonly clock = new ClockSync();
  private readonly sampler: SystemSampler;
  private publisher: StatsPublisher | null = null;
  private run: SliceRun | null = null;
  /** The run whose engine threads' poll-idle time was last read, and how much it was. */
  private idleRun: SliceRun | null = null;
  private idleSeenMs = 0;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private clockTimer: NodeJS.Timeout | null = null;
  private probeId = 0;
  private retired = false;
  private stopping: Promise<void> | null = null;
  /** Settles when the current slice's threads have ended. */
  private runEnded: Promise<void> | null = null;
  private readonly exited: Promise<void>;
  private resolveExited!: () => void;

  constructor(
    private readonly options: ResolvedWorkerOptions,
    private readonly log: Logger,
  ) {
    this.sampler = new SystemSampler(Math.min(options.threads, options.cores));
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
    this.connection = new MasterConnection({
      masterUrl: options.masterUrl,
      token: options.token,
      tls: options.masterTls,
      log,
      onOpen: () => this.hello(),
      onMessage: (message) => this.handle(message),
      onClose: () => this.stopTimers(),
    });
  }

  get id(): string {
    return this.options.workerId;
  }

  start(): void {
    this.connection.start();
  }

  /** Resolves when the worker has been retired or stopped. */
  whenStopped(): Promise<void> {
    return this.exited;
  }

  /** Graceful shutdown: stop the run, send its last batches, disconnect. Safe to call twice. */
  shutdown(timeoutMs = 30_000): Promise<void> {
    this.stopping ??= this.stopGracefully(timeoutMs);
    return this.stopping;
  }

  private async stopGracefully(timeoutMs: number): Promise<void> {
    this.retired = true;
    const run = this.run;
    if (run) {
      run.stop();
      await withTimeout(run.done(), timeoutMs).catch(() => this.log.error("the run did not stop in time"));
    }
    if (this.publisher) {
      const drained = await this.publisher.drain(timeoutMs);
      if (!drained) this.log.error({ buffered: this.publisher.buffered }, "stats not sent before shutdown");
      await this.publisher.close();
    }
    this.stopTimers();
    this.connection.stop();
    this.sampler.stop();
    this.resolveExited();
  }

  private hello(): void {
    this.connection.send({
      type: "hello",
      workerId: this.options.workerId,
      name: this.options.name,
      host: this.options.host,
      threads: this.options.threads,
      cores: this.options.cores,
      version: VOLLEY_VERSION,
      pid: process.pid,
      local: this.options.local,
      activeRunId: this.run?.runId ?? null,
      labels: this.options.labels,
    });
  }

  private handle(message: MasterToWorker): void {
    switch (message.type) {
      case "welcome":
        this.welcome(message);
        return;
      case "clock-pong":
        this.clock.add(message.t0, message.serverTime);
        return;
      case "start-run":
        void this.startRun(message);
        return;
      case "stop-run":
        if (this.run?.runId === message.runId) {
          this.log.info({ runId: message.runId }, "stopping the run");
          this.run.stop();
        }
        return;
      case "change-load":
        if (this.run?.runId === message.runId) {
          this.log.info({ runId: message.runId, change: message.change }, "load changed");
          this.run.changeLoad(message.change);
        }
        return;
      case "stats-route":
        if (this.run?.runId === message.runId) {
          this.log.info({ runId: message.runId, aggregator: message.aggregator }, "stats rerouted");
          this.publisher?.route(message.runId, message.aggregator, message.aggregatorRedis ?? null);
        }
        return;
      case "rebalance":
        if (this.run?.runId === message.runId) {
          this.log.info({ runId: message.runId, atMs: message.atMs }, "the run was rebalanced");
          this.run.rebalance(message.atMs, message.workerStep);
        }
        return;
      case "release-rows":
        void this.releaseRows(message);
        return;
      case "retire":
        this.log.info({ reason: message.reason }, "retired by the master");
        void this.shutdown();
        return;
      case "error":
        this.log.warn({ code: message.code, message: message.message }, "the master refused a message");
        return;
    }
  }

  private welcome({ serverTime, heartbeatIntervalMs, redisUrl, queuePrefix }: Welcome): void {
    this.clock.seed(serverTime);
    this.publisher ??= new StatsPublisher({
      redisUrl: this.options.redisUrl || redisUrl || DEFAULT_REDIS_URL,
      prefix: queuePrefix,
      log: this.log,
      maxBuffered: this.options.maxBufferedBatches,
    });
    this.stopTimers();
    this.heartbeatTimer = setInterval(() => this.heartbeat(), heartbeatIntervalMs);
    this.heartbeat();
    let probes = 0;
    const probe = () => {
      this.connection.send({ type: "clock-ping", id: ++this.probeId, t0: Date.now() });
      this.clockTimer = setTimeout(probe, ++probes < CLOCK_PROBES ? 100 : 10_000);
    };
    probe();
  }

  private heartbeat(): void {
    const run = this.run;
    // Engine threads that poll without sleeping keep their cores busy: what they polled for
    // nothing is not CPU the load took (SystemSampler takes it off).
    const idleTotal = run?.pollIdleMs() ?? 0;
    const idle = run === this.idleRun ? Math.max(0, idleTotal - this.idleSeenMs) : idleTotal;
    this.idleRun = run;
    this.idleSeenMs = idleTotal;
    const sample = this.sampler.sample(idle);
    const aggregator = run ? this.publisher?.routeOf(run.runId) : undefined;
    this.connection.send({
      type: "heartbeat",
      state: run ? (run.stopping ? "stopping" : "running") : "ready",
      runId: run?.runId ?? null,
      vus: run?.activeVus() ?? 0,
      cpu: sample.cpu,
      machineCpu: sample.machineCpu,
      cores: MACHINE_CORES,
      memoryMb: sample.memoryMb,
      // During a run the requests go through the engine threads: their loops are what delays them.
      eventLoopDelayMs: run ? run.loopDelayMs() : sample.eventLoopDelayMs,
      ...(run?.blocked ? { blocked: run.blocked } : {}),
      ...(aggregator === undefined ? {} : { aggregator }),
      ...(this.clock.uncertaintyMs === null ? {} : { clockUncertaintyMs: this.clock.uncertaintyMs }),
      sentAt: Date.now(),
    });
  }

  /** Tells the master this worker will not run `runId`, and why (logged as an error when `logAs` says). */
  private rejectRun(runId: string, why: string, logAs?: string): void {
    if (logAs) this.log.error({ runId, err: why }, logAs);
    this.connection.send({ type: "run-rejected", runId, message: why });
  }

  private async startRun(message: StartRun): Promise<void> {
    let files: RunFiles = {
      data: message.data,
      attachments: message.attachments,
      scripts: {},
      setupData: {},
    };
    if (message.packedFiles !== undefined) {
      try {
        files = await unpackRunFiles(message.packedFiles);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.rejectRun(message.runId, `bad run files: ${why}`);
        return;
      }
    }
    // What the machine allows (open files, ports, source addresses), before anything starts.
    try {
      await checkMachineLimits(message.scenario, message.partition);
    } catch (error) {
      this.rejectRun(
        message.runId,
        `${this.options.name}: ${(error as Error).message}`,
        "the run does not fit this machine",
      );
      return;
    }
    if (this.run?.finalPublished && this.run.runId !== message.runId) {
      // The master has this slice's last batch and released the worker; its threads are winding down.
      const waitMs = Math.max(PREVIOUS_RUN_MIN_WAIT_MS, this.clock.toLocal(message.startAt) - Date.now());
      await withTimeout(this.runEnded ?? Promise.resolve(), waitMs).catch(() => {});
    }
    if (this.run || this.retired || !this.publisher) {
      const why = this.run ? `already running ${this.run.runId}` : "not ready";
      this.rejectRun(message.runId, `${this.options.name} is ${why}`);
      return;
    }
    this.publisher.route(message.runId, message.aggregator ?? null, message.aggregatorRedis ?? null);
    let run: SliceRun;
    try {
      run = new SliceRun({
        runId: message.runId,
        workerId: this.options.workerId,
        workerName: this.options.name,
        scenario: message.scenario,
        partition: message.partition,
        data: files.data,
        attachments: files.attachments,
        env: message.env,
        scripts: files.scripts,
        setupData: files.setupData,
        threads: this.options.threads,
        stallMs: this.options.threadStallMs,
        startAtLocal: this.clock.toLocal(message.startAt),
        publisher: this.publisher,
        onThreadError: (error) => this.log.error({ runId: message.runId, error }, "engine thread error"),
        // Said at once, before the slice's final batch can end the run without it.
        onThreadLost: () => this.heartbeat(),
        join: message.join,
      });
      this.run = run;
      await run.ready();
    } catch (error) {
      this.run = null;
      this.rejectRun(
        message.runId,
        `${this.options.name}: ${(error as Error).message}`,
        "cannot start the run",
      );
      return;
    }
    this.connection.send({ type: "run-accepted", runId: run.runId });
    this.log.info({ runId: run.runId, clockOffsetMs: Math.round(this.clock.offsetMs) }, "run accepted");
    const ended = run.done();
    this.runEnded = ended.then(
      () => {},
      () => {},
    );
    const lastSeq = await ended;
    this.run = null;
    this.runEnded = null;
    this.connection.send({ type: "run-ended", runId: run.runId, lastSeq });
    this.log.info({ runId: run.runId, lastSeq }, "run slice finished");
    this.heartbeat();
  }

  /** Always answered, so the master need not wait out its timeout: no rows when not in that run. */
  private async releaseRows({ runId, handover, share }: ReleaseRows): Promise<void> {
    const run = this.run?.runId === runId ? this.run : null;
    const rows = run ? await run.releaseRows(share) : {};
    this.log.info({ runId, feeders: Object.keys(rows) }, "unique rows released for a joining worker");
    this.connection.send({ type: "rows-released", runId, handover, rows });
  }

  private stopTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.clockTimer) clearTimeout(this.clockTimer);
    this.heartbeatTimer = null;
    this.clockTimer = null;
  }
}
