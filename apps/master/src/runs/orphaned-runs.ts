import type { Database, RunRow } from "@volley/db";
import type { RunLease } from "./run-lease.js";

export type StartedRun = RunRow & { startAt: number };

/**
 * The active runs this master may take over (no owner, its own, or an owner whose lease ran out),
 * except `exceptId`. An orphan that never started cannot be resumed: it is claimed and failed here.
 */
export async function orphanedRuns(db: Database, lease: RunLease, exceptId?: string): Promise<StartedRun[]> {
  const started: StartedRun[] = [];
  for (const run of await db.runs.listActive()) {
    if (run.id === exceptId || !lease.claimable(run)) continue;
    if (run.status !== "queued" && run.startAt !== null) {
      started.push({ ...run, startAt: run.startAt });
    } else if (await lease.claim(run.id)) {
      await db.runs.update(run.id, {
        status: "failed",
        finishedAt: new Date(),
        error: "the master stopped before the run started",
      });
    }
  }
  return started;
}
