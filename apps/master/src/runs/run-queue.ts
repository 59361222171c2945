import { type Database, RunFileRepository } from "@volley/db";
import { runExecutorLabel, runPlannedMs, type Scenario } from "@volley/protocol";
import type { RunInputs } from "./run-data.js";
import { newRunId } from "./run-id.js";
import type { RunLease } from "./run-lease.js";
import { nextStatus, type RunLifecycle } from "./run-lifecycle.js";

/** A run waiting for its turn, with everything starting it needs. */
export interface QueuedRun {
  id: string;
  /** The scenario as the user wrote it. */
  input: unknown;
  scenario: Scenario;
  /** Feeder tables, attachments, script bundles and env values: held here, as env values are never stored. */
  inputs: RunInputs;
  /** Who asked for it. */
  startedBy?: string;
}

/**
 * The runs this master accepted while their workers were held, in the order they came. Each has a row
 * (status `queued`, owned by this master, its files kept) so the history shows it and another
 * master leaves it alone while this one renews its lease. Started by the scheduler as their workers
 * come free (in order among runs that want the same workers);
 * cancelled runs end `aborted` with reason `cancelled`.
 */
export class RunQueue {
  private readonly runs: QueuedRun[] = [];

  constructor(private readonly deps: { db: Database; lease: RunLease; lifecycle: RunLifecycle }) {}

  get size(): number {
    return this.runs.length;
  }

  ids(): string[] {
    return this.runs.map((r) => r.id);
  }

  has(id: string): boolean {
    return this.runs.some((r) => r.id === id);
  }

  /** Writes the run as queued, then puts it last in line. */
  async add(run: Omit<QueuedRun, "id">): Promise<QueuedRun> {
    const queued: QueuedRun = { id: newRunId(), ...run };
    const files = await RunFileRepository.pack(run.inputs.files);
    await this.deps.db.transaction(async (tx) => {
      await tx.runs.create({
        id: queued.id,
        name: run.scenario.name,
        status: nextStatus(null, "queue"),
        executor: runExecutorLabel(run.scenario),
        scenario: JSON.stringify(run.input),
        plannedDurationMs: runPlannedMs(run.scenario),
        startedBy: run.startedBy,
        ...this.deps.lease.newRun(),
      });
      await tx.files.saveMany(queued.id, files);
    });
    this.runs.push(queued);
    return queued;
  }

  /** The runs in line, first first. */
  list(): readonly QueuedRun[] {
    return this.runs;
  }

  /** A run taken out of line to start (its row stays `queued` until it starts or fails). */
  take(id: string): QueuedRun | undefined {
    const index = this.runs.findIndex((r) => r.id === id);
    return index < 0 ? undefined : this.runs.splice(index, 1)[0];
  }

  /** Takes a queued run out of line and records it cancelled; false when it is not queued here. */
  async cancel(id: string, by?: string): Promise<boolean> {
    const index = this.runs.findIndex((r) => r.id === id);
    if (index < 0) return false;
    this.runs.splice(index, 1);
    await this.deps.lifecycle.apply({ id, status: "queued" }, "cancel", {
      stopReason: "cancelled",
      ...(by !== undefined ? { stoppedBy: by } : {}),
    });
    return true;
  }

  /** Keeps this master's claim on its queued runs; drops any another master took. */
  async renew(now = Date.now()): Promise<void> {
    for (const run of [...this.runs]) {
      const held = await this.deps.lease.renew(run.id, now).catch(() => true);
      if (!held) this.runs.splice(this.runs.indexOf(run), 1);
    }
  }

  /** At shutdown: runs that never started are failed, saying why. */
  async abandon(reason: string): Promise<void> {
    for (const run of this.runs.splice(0)) {
      await this.deps.lifecycle
        .apply({ id: run.id, status: "queued" }, "fail", { error: reason })
        .catch(() => undefined);
    }
  }
}
