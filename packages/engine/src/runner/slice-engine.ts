import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import {
  type FeederTable,
  feedersByPart,
  hasThinkTime,
  type JoinRun,
  type LoadChange,
  Partition,
  type PartitionStep,
  PHASES_PERIOD_S,
  type RequestStats,
  type RowRange,
  type Scenario,
  vuCeiling,
} from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import type { BaseExecutor } from "../executors/base-executor.js";
import { createExecutor } from "../executors/registry.js";
import { FeederSet } from "../feeders/feeder.js";
import { GrpcChannels } from "../grpc/grpc-channels.js";
import { TraceIds } from "../http/trace-ids.js";
import { WriteBatch } from "../http/write-batch.js";
import { ConnectionSettings } from "../network/connection-settings.js";
import { ProtoPackages } from "../scenario/compiled-grpc.js";
import { compileRequests, requestOrigins } from "../scenario/compiled-request.js";
import type { LoadedScript } from "../script/load-scripts.js";
import { ScriptMetrics } from "../script/script-metrics.js";
import { scriptedVus } from "../script/script-part.js";
import { ScriptRecorders } from "../script/script-recorders.js";
import { atMoment } from "../timing/at-moment.js";
import { IterationLog } from "../vu/iteration-log.js";
import { VirtualUser } from "../vu/virtual-user.js";
import type { VuContext } from "../vu/vu-context.js";
import { BusyPoll } from "./busy-poll.js";
import { scriptThreadOf, slicePools, sliceRecorders } from "./slice-setup.js";
import type { ThreadPools } from "./thread-pools.js";

/** One second (or the final part of one) of a slice's measurements. */
export interface SlicePeriod {
  /** Second of the run, from 0. Every second from 0 to the final one is reported exactly once. */
  second: number;
  final: boolean;
  requests: RequestStats[];
  dropped: number;
  /** Most VUs active at once during the period (sampled every 100 ms). */
  vus: number;
  /** Worst event-loop delay of the thread during the period, ms (a busy thread delays requests). */
  loopDelayMs: number;
  /** CPU time the thread spent polling with nothing to do (busy-poll.ts), ms: not work. */
  pollIdleMs: number;
}

export interface SliceEngineOptions {
  scenario: Scenario;
  partition: Partition;
  /** Scheduled start, epoch ms in this machine's clock. */
  startAtEpochMs: number;
  workerName: string;
  /** This thread's feeder tables (unique ones already dealt out; see threadTables). @defaultValue none */
  data?: Record<string, FeederTable>;
  /** The row numbers of each unique feeder's rows in `data` (what the thread can hand over). */
  uniqueRanges?: Record<string, RowRange[]>;
  /** Files multipart bodies send, base64. @defaultValue none */
  attachments?: Record<string, string>;
  /** Values of the scenario's env names. @defaultValue none */
  env?: Record<string, string>;
  /** Receives each second's statistics; called off the request path, once a second. */
  onPeriod: (period: SlicePeriod) => void;
  /** False measures counts only, to price the histograms (`pnpm bench overhead`). @defaultValue true */
  latencyHistograms?: boolean;
  /** The scripts scripted parts run, loaded (`loadScripts`), by the path the scenario names. */
  scripts?: Record<string, LoadedScript>;
  /** Set when the worker joins a run already going: its share counts from `join.atMs`. */
  join?: JoinRun;
}

/**
 * Runs one thread's slice of a scenario: the connection pool, the VUs through their executor,
 * and the per-second statistics. Usable in a worker thread or in-process.
 */
export class SliceEngine {
  /** One pool per origin (the target, each `url`'s host, and any a script calls). */
  private readonly pools: ThreadPools;
  private readonly grpcChannels: GrpcChannels;
  /** One per part of the scenario (one, or each of `scenarios:`), side by side. */
  private readonly executors: BaseExecutor[];
  private readonly recorders: RequestRecorder[];
  private readonly uniqueRecorders: RequestRecorder[];
  /** Each part's iterations, finished and skipped. */
  private readonly iterationLogs: IterationLog[];
  /** What each part's scripted VUs record, under the names their scripts give (scoped by the part). */
  private readonly scriptRecorders: ScriptRecorders[];
  private readonly scriptMetrics: ScriptMetrics;
  private readonly startAt: number;
  private dropped = 0;
  private nextSecond = 0;
  private secondTimer: NodeJS.Timeout | null = null;
  private startTimer: NodeJS.Timeout | null = null;
  private readonly done: Promise<void>;
  private resolveDone!: () => void;
  private ended = false;
  private peakVus = 0;
  private vuSampler: NodeJS.Timeout | null = null;
  private readonly feeders: FeederSet;
  private readonly busyPoll: BusyPoll;
  private readonly writes = new WriteBatch();
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  /** HTTP/1.1 requests written in batches (under heavy load, see WriteBatch) so far. */
  get batchedWrites(): number {
    return this.writes.batched;
  }

  constructor(private readonly options: SliceEngineOptions) {
    const { scenario, partition } = options;
    const feeders = new FeederSet(scenario.data, options.data ?? {}, options.uniqueRanges);
    this.feeders = feeders;
    // Decoded once per thread; every request sends the same bytes.
    const attachments = Object.fromEntries(
      Object.entries(options.attachments ?? {}).map(([name, base64]) => [
        name,
        Buffer.from(base64, "base64"),
      ]),
    );
    const protos = new ProtoPackages(attachments);
    const requests = compileRequests(
      scenario,
      { env: options.env ?? {}, locate: (feeder, field) => feeders.locate(feeder, field) },
      attachments,
      protos,
    );
    const recorders = sliceRecorders(requests, scenario.groups, options.latencyHistograms ?? true);
    this.recorders = recorders.perRequest;
    this.uniqueRecorders = recorders.unique;
    const groupRecorders = recorders.groups;
    const namedRecorders = recorders.byName;
    const network = new ConnectionSettings(scenario.http, attachments, options.env ?? {}, partition.span());
    this.pools = slicePools(scenario, partition, network, this.writes);
    this.busyPoll = new BusyPoll(() => this.pools.admitted(), scenario.http.version === "1.1", this.writes);
    this.grpcChannels = new GrpcChannels(network);
    // The scenario's origins, in the order its compiled requests refer to them.
    const origins = requestOrigins(scenario).map((origin) => this.pools.get(origin.origin));
    // One source of trace ids per thread, shared by its declarative and scripted requests.
    const { tracing: traced, client } = scenario.http;
    const tracing = traced ? new TraceIds(traced, client === "undici") : null;
    this.scriptMetrics = new ScriptMetrics(options.latencyHistograms ?? true);
    this.scriptRecorders = scenario.parts.map(
      (part) => new ScriptRecorders(options.latencyHistograms ?? true, part.name),
    );
    const scriptParts = {
      pools: this.pools,
      grpc: this.grpcChannels,
      network,
      protos,
      tracing,
      metrics: this.scriptMetrics,
      worker: options.workerName,
      env: options.env ?? {},
      feeders,
      scripts: options.scripts ?? {},
    };
    this.startAt = options.startAtEpochMs - performance.timeOrigin;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    const shared = {
      requests,
      recorders: this.recorders,
      origins,
      worker: options.workerName,
      feeders,
      groupRecorders,
      namedRecorders,
      grpc: this.grpcChannels,
      network,
      maxBodyBytes: scenario.http.maxBodyBytes,
      maxInFlightPerVu: scenario.http.maxConnectionsPerVu,
      tracing,
      session: {
        cookies: scenario.http.cookies,
        cookieReset: scenario.http.cookieReset,
        followRedirects: scenario.http.followRedirects,
        compression: scenario.http.compression,
      },
    };
    // One executor per part; VU numbers of a part follow those of the parts before it (a worker
    // that joins later numbers its VUs after every number the run has used).
    let vuNumberOffset = options.join?.vuNumberOffset ?? 0;
    let running = scenario.parts.length;
    const partFeeders = feedersByPart(scenario);
    this.iterationLogs = scenario.parts.map(
      (part) => new IterationLog(part.name, options.latencyHistograms ?? true),
    );
    this.executors = scenario.parts.map((part, partIndex) => {
      let upTo = 0;
      const flows = part.flows.map((flow) => {
        upTo += flow.weight;
        return { program: flow.program, upTo };
      });
      const vuContext: VuContext = {
        ...shared,
        thinkTime: part.thinkTime,
        thinks: hasThinkTime(part.thinkTime),
        flows,
        feederPicks: feeders.indexesOf(partFeeders[partIndex]),
      };
      const executor = createExecutor(part.load, {
        createVu:
          part.script !== null
            ? scriptedVus(
                { ...part, script: part.script },
                scriptThreadOf(scenario, scriptParts, this.scriptRecorders[partIndex]),
              )
            : (number, index) => new VirtualUser(number, index, vuContext),
        partition,
        vuNumberOffset,
        iterations: this.iterationLogs[partIndex],
        joinAtMs: options.join?.atMs,
        startAt: this.startAt,
        onDropped: () => {
          this.dropped++;
        },
        onDone: () => {
          if (--running === 0) void this.finish();
        },
      });
      // Numbered up to the ceiling: VUs a load change adds keep numbers no other part uses.
      vuNumberOffset += vuCeiling(part.load);
      return executor;
    });
    this.applyJoinChanges();
  }

  /** The load changes made before this worker joined: its executors apply them as the others did. */
  private applyJoinChanges(): void {
    for (const change of this.options.join?.changes ?? []) this.changeLoad(change);
  }

  /** A worker joined the run: from `atMs` on, this thread's share is `steps`'. */
  rebalance(atMs: number, steps: PartitionStep[]): void {
    const partition = new Partition(steps);
    for (const executor of this.executors) executor.rebalance(atMs, partition);
  }

  /**
   * A worker is joining the run: `share` of this thread's unused unique rows go to it (see
   * `Feeder.release`). Called between iterations, so no VU is holding a row being given away.
   */
  releaseRows(share: number): Record<string, RowRange[]> {
    return this.feeders.release(share);
  }

  /** Waits for the scheduled start, then runs; resolves when the slice is over and sockets are closed. */
  run(): Promise<void> {
    this.armStart();
    return this.done;
  }

  /** The start timer (see atMoment: never before the start). */
  private armStart(): void {
    atMoment(
      this.startAt,
      () => {
        this.startTimer = null;
        this.loopDelay.enable();
        for (const executor of this.executors) executor.begin();
        this.vuSampler = setInterval(() => {
          this.peakVus = Math.max(this.peakVus, this.activeVus());
          this.busyPoll.tick();
        }, 100);
        this.scheduleSecond();
      },
      (fire, delayMs) => {
        this.startTimer = setTimeout(fire, delayMs);
      },
    );
  }

  /** Graceful stop: no new iterations; running ones get gracefulStop to finish. */
  stop(): void {
    if (this.startTimer) {
      clearTimeout(this.startTimer);
      this.startTimer = null;
      void this.finish();
      return;
    }
    for (const executor of this.executors) executor.stop();
  }

  /** A change of the load made while the run goes; applied by the part's executor at `atMs`. */
  changeLoad(change: LoadChange): void {
    const executor = this.executors[change.part];
    if (!executor) throw new Error(`the scenario has no part ${change.part}`);
    executor.applyLoad(change);
  }

  activeVus(): number {
    return this.executors.reduce((sum, executor) => sum + executor.activeVus(), 0);
  }

  private scheduleSecond(): void {
    const boundary = this.startAt + (this.nextSecond + 1) * 1000;
    this.secondTimer = setTimeout(() => {
      this.emit(false);
      this.scheduleSecond();
    }, boundary - performance.now());
  }

  private emit(final: boolean): void {
    const requests: RequestStats[] = [];
    const phasesDue = final || (this.nextSecond + 1) % PHASES_PERIOD_S === 0;
    const take = (recorder: RequestRecorder) => {
      if (!recorder.isEmpty || (phasesDue && recorder.holdsPhases)) requests.push(recorder.flush(phasesDue));
    };
    for (const recorder of this.uniqueRecorders) take(recorder);
    for (const part of this.scriptRecorders) for (const recorder of part.all()) take(recorder);
    for (const recorder of this.scriptMetrics.recorders())
      if (!recorder.isEmpty) requests.push(recorder.flush());
    for (const log of this.iterationLogs) {
      if (!log.finished.isEmpty) requests.push(log.finished.flush());
      if (!log.skipped.isEmpty) requests.push(log.skipped.flush());
      if (!log.lateStart.isEmpty) requests.push(log.lateStart.flush());
    }
    const period = {
      second: this.nextSecond++,
      final,
      requests,
      dropped: this.dropped,
      vus: Math.max(this.peakVus, this.activeVus()),
      loopDelayMs: this.loopDelay.count ? this.loopDelay.max / 1e6 : 0,
      pollIdleMs: this.busyPoll.takeIdleMs(),
    };
    this.dropped = 0;
    this.peakVus = this.activeVus();
    this.loopDelay.reset();
    this.options.onPeriod(period);
  }

  private async finish(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.secondTimer) clearTimeout(this.secondTimer);
    if (this.vuSampler) clearInterval(this.vuSampler);
    this.busyPoll.stop();
    this.emit(true);
    this.loopDelay.disable();
    // close() lets nothing new start and closes every socket once in-flight requests are done;
    // by now none are in flight.
    this.grpcChannels.closeAll();
    await this.pools.close();
    this.resolveDone();
  }
}
