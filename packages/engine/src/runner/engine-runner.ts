import {
  type FeederTable,
  feederUnits,
  type JoinRun,
  type LoadChange,
  MAX_VUS_PER_THREAD,
  Partition,
  type PartitionStep,
  parseScenario,
  type RowRange,
  runPeakVus,
} from "@volley/protocol";
import { threadTables } from "../feeders/thread-tables.js";
import { EngineThread } from "./engine-thread.js";
import { PeriodMerger } from "./period-merger.js";
import type { SlicePeriod } from "./slice-engine.js";
import type { ThreadStart } from "./thread-messages.js";

/**
 * A thread with many VUs caps its young generation: V8's default lets each isolate grow it to
 * tens of MB, which at 10,000 VUs was 30 MB of a worker's RSS. A thread with few VUs (a
 * throughput test) keeps the default: the cap cost it about 6 % of its requests (bench README).
 */
const MANY_VUS_PER_THREAD = 1000;
const MANY_VUS_LIMITS = { maxYoungGenerationSizeMb: 12 };

export interface EngineRunnerOptions {
  /** The scenario as written; validated again here, at the edge of the engine. */
  scenario: unknown;
  /** This worker's slice of the whole load. */
  partition: PartitionStep[];
  /** Engine threads to use (fewer when the slice has fewer VUs). */
  threads: number;
  startAtEpochMs: number;
  workerName: string;
  /** Every feeder's rows (the master read them); each thread gets its share. @defaultValue none */
  data?: Record<string, FeederTable>;
  /** Files multipart bodies send, base64. @defaultValue none */
  attachments?: Record<string, string>;
  /** Values of the scenario's env names. @defaultValue none */
  env?: Record<string, string>;
  /** Script bundles (one ES module each) by the path the scenario names them. @defaultValue none */
  scripts?: Record<string, string>;
  /** What each script's setup() returned, as JSON, by script path. @defaultValue none */
  setupData?: Record<string, string>;
  /** One merged period per second of the run, in order; the last has `final`. */
  onPeriod: (period: SlicePeriod) => void;
  /** A thread's error; the slice goes on in the other threads. */
  onThreadError?: (message: string) => void;
  /**
   * A running thread is gone before its slice was done, and what it measured since its last
   * second with it: one that sent nothing for `stallMs` (a script that never awaits: it is
   * terminated), one that died (`process.exit()`, an uncaught error), one that sent garbage.
   * Called before the slice's final period, so the worker can say so first.
   */
  onThreadLost?: (message: string) => void;
  /** @defaultValue 10000 */
  stallMs?: number;
  /** Set when this worker joins a run already going: its share counts from `join.atMs`. */
  join?: JoinRun;
}

/** A thread posts a period every second while it runs: this much silence means it is blocked. */
const DEFAULT_STALL_MS = 10_000;

/**
 * Runs a worker's slice in `threads` worker threads (one event loop per core) and merges their
 * per-second statistics. Threads get disjoint VU numbers from the partition.
 */
export class EngineRunner {
  readonly threadCount: number;
  private readonly threads: EngineThread[] = [];
  private readonly readiness: Promise<void>[] = [];
  private readonly merger: PeriodMerger;
  private readonly finished: Promise<void>;
  private lastVus = 0;
  private lastLoopDelayMs = 0;
  private pollIdleTotalMs = 0;
  private readonly watchdog: NodeJS.Timeout;
  /** Row releases waiting for their threads' answers, by id. */
  private readonly releases = new Map<number, (thread: number, rows: Record<string, RowRange[]>) => void>();
  private releaseId = 0;

  constructor(options: EngineRunnerOptions) {
    const scenario = parseScenario(options.scenario);
    const slice = new Partition(options.partition);
    const vus = slice.count(runPeakVus(scenario));
    this.threadCount = Math.max(1, Math.min(options.threads, vus));
    if (Math.ceil(vus / this.threadCount) > MAX_VUS_PER_THREAD) {
      throw new Error(
        `${vus} VUs on ${this.threadCount} thread(s) is more than ${MAX_VUS_PER_THREAD} VUs per thread: add threads or workers`,
      );
    }
    this.merger = new PeriodMerger(this.threadCount, (period) => {
      this.lastVus = period.vus;
      this.lastLoopDelayMs = period.loopDelayMs;
      this.pollIdleTotalMs += period.pollIdleMs;
      options.onPeriod(period);
    });
    let resolveFinished!: () => void;
    this.finished = new Promise((resolve) => {
      resolveFinished = resolve;
    });
    let exited = 0;
    const units = Object.fromEntries(
      Object.keys(scenario.data).map((name) => [name, feederUnits(scenario, name)]),
    );
    for (let index = 0; index < this.threadCount; index++) {
      const threadStep = { weights: Array(this.threadCount).fill(1), index };
      const partition = slice.child(threadStep.weights, index).steps;
      const feeders = threadTables(
        scenario.data,
        options.data ?? {},
        options.partition,
        threadStep,
        // A joiner uses only rows it was granted: the start's blocks belong to the others.
        options.join ? (options.join.rows ?? {}) : undefined,
        units,
      );
      const data: ThreadStart = {
        scenario: options.scenario,
        partition,
        startAtEpochMs: options.startAtEpochMs,
        workerName: options.workerName,
        data: feeders.tables,
        uniqueRanges: feeders.uniqueRanges,
        attachments: options.attachments ?? {},
        env: options.env ?? {},
        scripts: options.scripts ?? {},
        setupData: options.setupData ?? {},
        ...(options.join ? { join: options.join } : {}),
      };
      const many = vus / this.threadCount >= MANY_VUS_PER_THREAD;
      let started!: { resolve: () => void; reject: (error: Error) => void };
      const readiness = new Promise<void>((resolve, reject) => {
        started = { resolve, reject };
      });
      // Settled once; whoever awaits ready() sees the outcome, nobody else needs to.
      readiness.catch(() => {});
      const thread = new EngineThread(index, data, many ? MANY_VUS_LIMITS : {}, {
        onReady: () => started.resolve(),
        onPeriod: (period) => this.merger.add(index, period),
        onRowsReleased: (id, rows) => this.releases.get(id)?.(index, rows),
        onFailed: (message) => {
          started.reject(new Error(message));
          options.onThreadError?.(message);
        },
        onExit: (lost) => {
          started.reject(new Error("an engine thread exited before it was ready"));
          if (lost !== null) options.onThreadLost?.(lost);
          this.merger.threadEnded(index);
          if (++exited === this.threadCount) {
            clearInterval(this.watchdog);
            resolveFinished();
          }
        },
      });
      this.threads.push(thread);
      this.readiness.push(readiness);
    }
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    this.watchdog = setInterval(() => {
      const now = Date.now();
      for (const thread of this.threads) {
        // Before the start a thread is silent by design: the clock runs from the start on.
        if (!thread.running || now - Math.max(thread.lastHeard, options.startAtEpochMs) <= stallMs) continue;
        thread.kill(
          `engine thread ${thread.index + 1} sent nothing for ${Math.round(stallMs / 1000)} s and was stopped: a script that never awaits (a busy loop) blocks its thread`,
        );
      }
    }, 1000);
    this.watchdog.unref();
  }

  /** Resolves when every thread has compiled the scenario and waits for the start. */
  ready(): Promise<void> {
    return Promise.all(this.readiness).then(() => undefined);
  }

  /** Graceful stop of every thread. */
  stop(): void {
    for (const thread of this.threads) thread.post({ type: "stop" });
  }

  /**
   * A worker joined the run: from `atMs` on, this worker's share is `workerStep`, split over
   * its threads as before.
   */
  rebalance(atMs: number, workerStep: PartitionStep): void {
    const slice = new Partition([workerStep]);
    this.threads.forEach((thread, index) => {
      const partition = slice.child(Array(this.threadCount).fill(1), index).steps;
      thread.post({ type: "rebalance", atMs, partition });
    });
  }

  /**
   * Asks every running thread to give up `share` of its unused unique rows; resolves with them
   * by feeder once all answered or `timeoutMs` passed (a thread that answers later keeps none:
   * its rows are given up, never handed out twice).
   */
  releaseRows(share: number, timeoutMs = 2000): Promise<Record<string, RowRange[]>> {
    const id = ++this.releaseId;
    const running = this.threads.filter((thread) => thread.running);
    const released: Record<string, RowRange[]> = {};
    return new Promise((resolve) => {
      let waiting = running.length;
      const finish = () => {
        clearTimeout(timer);
        this.releases.delete(id);
        resolve(released);
      };
      const timer = setTimeout(finish, timeoutMs);
      this.releases.set(id, (_thread, rows) => {
        for (const [name, ranges] of Object.entries(rows))
          released[name] = [...(released[name] ?? []), ...ranges];
        if (--waiting === 0) finish();
      });
      if (waiting === 0) return finish();
      for (const thread of running) thread.post({ type: "release-rows", id, share });
    });
  }

  /** A load change for every thread; each takes its share through its partition. */
  changeLoad(change: LoadChange): void {
    for (const thread of this.threads) thread.post({ type: "load", change });
  }

  /** Resolves once every thread has exited (the final period has been delivered). */
  done(): Promise<void> {
    return this.finished;
  }

  /** VUs active in the last merged second. */
  activeVus(): number {
    return this.lastVus;
  }

  /** Worst event-loop delay of any engine thread in the last merged second, ms. */
  loopDelayMs(): number {
    return this.lastLoopDelayMs;
  }

  /** CPU time the threads spent polling with nothing to do, in all, ms (busy-poll.ts). */
  pollIdleMs(): number {
    return this.pollIdleTotalMs;
  }

  /** Stops the threads at once, without a final period (process shutdown). */
  async terminate(): Promise<void> {
    clearInterval(this.watchdog);
    await Promise.all(this.threads.map((thread) => thread.terminate()));
  }
}
