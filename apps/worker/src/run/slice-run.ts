import { EngineRunner, type SlicePeriod } from "@volley/engine";
import type { FeederTable, JoinRun, LoadChange, PartitionStep, RowRange } from "@volley/protocol";
import type { StatsPublisher } from "../stats/stats-publisher.js";

export interface SliceRunOptions {
  runId: string;
  workerId: string;
  workerName: string;
  scenario: unknown;
  partition: PartitionStep[];
  /** Feeder tables and env values the master resolved for the run. */
  data: Record<string, FeederTable>;
  attachments: Record<string, string>;
  env: Record<string, string>;
  /** Script bundles by the path the scenario names them. */
  scripts: Record<string, string>;
  /** What each script's setup() returned, as JSON. */
  setupData: Record<string, string>;
  threads: number;
  /** See EngineRunnerOptions.stallMs. */
  stallMs: number;
  /** Scheduled start in this machine's clock. */
  startAtLocal: number;
  publisher: StatsPublisher;
  onThreadError: (message: string) => void;
  /** A running engine thread is gone (blocked and stopped, or died): told before the final batch. */
  onThreadLost: (message: string) => void;
  /** Set when the worker joins a run already going. */
  join?: JoinRun;
}

/** This worker's part of one run: the engine threads, and one queued batch per second. */
export class SliceRun {
  readonly runId: string;
  private readonly runner: EngineRunner;
  private lastSeq = -1;
  stopping = false;
  /** Why an engine thread was lost (blocked and stopped, or died), for the heartbeat (the master stops the run). */
  blocked: string | undefined;
  /** The final batch is queued: the master may already have released this worker. */
  finalPublished = false;

  constructor(private readonly options: SliceRunOptions) {
    this.runId = options.runId;
    this.runner = new EngineRunner({
      scenario: options.scenario,
      partition: options.partition,
      threads: options.threads,
      startAtEpochMs: options.startAtLocal,
      workerName: options.workerName,
      data: options.data,
      attachments: options.attachments,
      env: options.env,
      scripts: options.scripts,
      setupData: options.setupData,
      onPeriod: (period) => this.publish(period),
      onThreadError: options.onThreadError,
      stallMs: options.stallMs,
      join: options.join,
      onThreadLost: (message) => {
        this.blocked ??= message;
        options.onThreadError(message);
        options.onThreadLost(message);
      },
    });
  }

  /** Resolves once every engine thread is ready; rejects with the reason a thread could not start. */
  async ready(): Promise<void> {
    try {
      await this.runner.ready();
    } catch (error) {
      await this.runner.terminate();
      throw error;
    }
  }

  /** Resolves with the final batch's seq once the slice is over. */
  async done(): Promise<number> {
    await this.runner.done();
    return this.lastSeq;
  }

  stop(): void {
    this.stopping = true;
    this.runner.stop();
  }

  changeLoad(change: LoadChange): void {
    if (!this.stopping) this.runner.changeLoad(change);
  }

  rebalance(atMs: number, workerStep: PartitionStep): void {
    if (!this.stopping) this.runner.rebalance(atMs, workerStep);
  }

  /** Unused unique rows its threads give up for a joining worker (none once stopping). */
  async releaseRows(share: number): Promise<Record<string, RowRange[]>> {
    return this.stopping ? {} : this.runner.releaseRows(share);
  }

  activeVus(): number {
    return this.runner.activeVus();
  }

  loopDelayMs(): number {
    return this.runner.loopDelayMs();
  }

  /** CPU time its engine threads spent polling with nothing to do, in all, ms. */
  pollIdleMs(): number {
    return this.runner.pollIdleMs();
  }

  private publish(period: SlicePeriod): void {
    this.lastSeq = period.second;
    if (period.final) this.finalPublished = true;
    this.options.publisher.publish({
      runId: this.runId,
      workerId: this.options.workerId,
      seq: period.second,
      second: period.second,
      final: period.final,
      vus: period.vus,
      dropped: period.dropped,
      lostBatches: 0,
      elapsedMs: Math.max(0, Date.now() - this.options.startAtLocal),
      requests: period.requests,
      sentAt: Date.now(),
    });
  }
}
