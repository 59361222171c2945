import type { Database } from "@volley/db";
import { isLiveRunStatus, type RowsReleased, type WorkerHeartbeat } from "@volley/protocol";
import type { Logger } from "pino";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import { type ActiveRun, recordHeartbeat } from "./active-run.js";
import type { StopReason } from "./run-lifecycle.js";

export interface RunWorkerEventsDeps {
  db: Database;
  registry: WorkerRegistry;
  log: Logger;
  /** A run in progress on this master, by id. */
  run: (id: string) => ActiveRun | undefined;
  /** The runs in progress on this master. */
  runs: () => ActiveRun[];
  /** Takes over runs left active by a master that stopped (see RunScheduler.adopt). */
  adopt: () => Promise<void>;
  stopRun: (id: string, reason: StopReason) => Promise<string>;
}

/**
 * What the workers' messages mean for the run they are part of: a worker that comes back, beats,
 * is lost, refuses its part or hands rows over. Each message is applied to the run it names (runs
 * on disjoint workers run at once); messages about a run not in progress here change nothing.
 */
export class RunWorkerEvents {
  constructor(private readonly deps: RunWorkerEventsDeps) {}

  /** Whether a run in progress has this worker (lost or not). */
  inActiveRun(workerId: string): boolean {
    return this.deps.runs().some((run) => run.aggregator.hasWorker(workerId));
  }

  /** A worker connected; `activeRunId` is the run it is still running, if any. */
  connected(workerId: string, activeRunId: string | null): void {
    const active = activeRunId ? this.deps.run(activeRunId) : undefined;
    if (activeRunId && !active) {
      void this.unknownRunReported(workerId, activeRunId);
      return;
    }
    if (active?.aggregator.hasWorker(workerId)) {
      active.seen.set(workerId, Date.now());
      active.aggregator.markLost(workerId, false);
      if (active.stopReason) this.deps.registry.send(workerId, { type: "stop-run", runId: active.id });
    }
  }

  /**
   * A worker runs a run this master does not. One still active in the database was left by a
   * master that stopped: it is taken over (now, or once its owner's lease runs out) and the worker
   * keeps going. One that is over, or unknown, the worker stops.
   */
  private async unknownRunReported(workerId: string, runId: string): Promise<void> {
    const run = await this.deps.db.runs.get(runId).catch(() => undefined);
    if (run === undefined) return; // the database does not answer: decide at the next connection
    if (run && isLiveRunStatus(run.status)) {
      await this.deps.adopt();
      if (this.deps.run(runId)) this.connected(workerId, runId);
      return;
    }
    if (!this.deps.run(runId)) this.deps.registry.send(workerId, { type: "stop-run", runId });
  }

  heartbeat(workerId: string, heartbeat: WorkerHeartbeat, saturated: boolean): void {
    const active = heartbeat.runId === null ? undefined : this.deps.run(heartbeat.runId);
    if (!active?.aggregator.hasWorker(workerId)) return;
    const name = this.deps.registry.get(workerId)?.info.name ?? workerId;
    if (!recordHeartbeat(active, workerId, name, heartbeat, saturated)) return;
    // A script that never awaits: the figures stop being true; the run stops, saying why.
    this.deps.log.error(
      { runId: active.id, workerId, why: heartbeat.blocked },
      "a script blocked an engine thread",
    );
    if (!active.stopReason) void this.deps.stopRun(active.id, "script").catch(() => undefined);
  }

  lost(workerId: string): void {
    for (const active of this.deps.runs()) {
      if (!active.aggregator.hasWorker(workerId)) continue;
      active.aggregator.markLost(workerId);
      this.deps.log.warn({ runId: active.id, workerId }, "worker lost during the run");
    }
  }

  rejected(workerId: string, runId: string, message: string): void {
    const active = this.deps.run(runId);
    if (!active) return;
    active.rejected.set(workerId, message);
    active.aggregator.markLost(workerId);
    this.deps.log.error({ runId, workerId, message }, "worker could not start its part of the run");
  }

  /** A worker's answer to a row handover (see `RowHandover.receive`); why it was not taken, if not. */
  rowsReleased(workerId: string, message: RowsReleased): string | null {
    const rows = this.deps.run(message.runId)?.launch?.rows;
    return rows ? rows.receive(workerId, message) : "no handover in that run";
  }
}
