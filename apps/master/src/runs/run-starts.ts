import { type Scenario, VolleyError, type WorkerInfo } from "@volley/protocol";
import type { ActiveRun } from "./active-run.js";
import { admission, heldBy } from "./run-admission.js";
import { openRun, sendSlices } from "./run-launch.js";
import type { RunLifecycle } from "./run-lifecycle.js";
import type { QueuedRun, RunQueue } from "./run-queue.js";
import type { RunSchedulerOptions } from "./scheduler-options.js";

export interface RunStartsDeps {
  options: RunSchedulerOptions;
  queue: RunQueue;
  lifecycle: RunLifecycle;
  /** The runs in progress (read only here: `started` adds one). */
  runs: ReadonlyMap<string, ActiveRun>;
  started: (active: ActiveRun) => void;
  publishStatus: (runId: string) => Promise<void>;
}

/**
 * Starting runs: a run starts when its workers are free (run-admission.ts), else waits in the
 * queue for them; queued runs start as their workers come free. Launches (and the scheduler's
 * takeovers) happen one at a time, so two never choose the same worker.
 */
export class RunStarts {
  /** The launch or takeover under way; the next waits for it. */
  private turn: Promise<unknown> = Promise.resolve();
  private startingQueued: Promise<void> | null = null;

  constructor(private readonly deps: RunStartsDeps) {}

  /** A prepared run: started now when its workers are free, else queued (`queue`) or 409. */
  create(run: Omit<QueuedRun, "id">, queue: boolean): Promise<{ id: string; status: string }> {
    return this.exclusive(async () => {
      const wait = this.admission(run.scenario, this.deps.queue.list());
      if (wait === null) return this.launch(run);
      if (!queue) throw new VolleyError("VOL_ERR_RUN_ACTIVE", wait);
      const queued = await this.deps.queue.add(run);
      this.deps.options.log.info({ runId: queued.id, position: this.deps.queue.size }, "run queued");
      await this.deps.publishStatus(queued.id);
      return { id: queued.id, status: "queued" };
    });
  }

  /** Why a run with this scenario must wait for the runs in progress and `ahead`, or null. */
  private admission(scenario: Scenario, ahead: readonly QueuedRun[]): string | null {
    return admission(scenario, {
      workers: this.deps.options.registry.connected(),
      active: new Map([...this.deps.runs].map(([id, run]) => [id, { name: run.scenario.name }])),
      queuedAhead: ahead.map((q) => ({ id: q.id, name: q.scenario.name, scenario: q.scenario })),
    });
  }

  /** One launch or takeover at a time: each chooses among the workers the one before left free. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Plans the run over its free workers and starts it; throws 409 when there are none. */
  private async launch(
    run: Omit<QueuedRun, "id"> & { queuedId?: string },
  ): Promise<{ id: string; status: string }> {
    const held = (info: WorkerInfo) => heldBy(info, this.deps.runs) !== null;
    const { active, launched, packedFiles } = await openRun(this.deps.options, run, held);
    this.deps.started(active);
    const live = await this.deps.options.ingest.liveAggregators();
    active.routes = sendSlices(this.deps.options.registry, launched, run.inputs, packedFiles, live);
    this.deps.options.log.info(
      { runId: active.id, workers: launched.plan.length, startAt: active.startAt },
      "run started",
    );
    await this.deps.publishStatus(active.id);
    return { id: active.id, status: "running" };
  }

  /**
   * Every queued run whose workers are free now, in order: started, or failed when none is ready.
   * One pass at a time (the watch asks every second; a launch may wait for finishing workers).
   */
  startQueued(): Promise<void> {
    this.startingQueued ??= this.exclusive(() => this.startFreeQueued()).finally(() => {
      this.startingQueued = null;
    });
    return this.startingQueued;
  }

  private async startFreeQueued(): Promise<void> {
    const waiting = [...this.deps.queue.list()];
    for (const [index, next] of waiting.entries()) {
      const ahead = waiting.slice(0, index).filter((q) => this.deps.queue.has(q.id));
      if (this.admission(next.scenario, ahead) !== null) continue;
      this.deps.queue.take(next.id);
      try {
        await this.launch({ ...next, queuedId: next.id });
      } catch (error) {
        const message = (error as Error).message;
        this.deps.options.log.error({ runId: next.id, err: message }, "the queued run could not start");
        await this.deps.lifecycle
          .apply({ id: next.id, status: "queued" }, "fail", { error: `could not start: ${message}` })
          .catch(() => undefined);
      }
    }
  }
}
