import type { Database, RunRow } from "@volley/db";

export interface RunLeaseOptions {
  db: Database;
  /** This master's instance id. */
  owner: string;
  /** How long a lease lasts unless renewed. @defaultValue 15000 */
  leaseMs?: number;
}

/**
 * Which master runs which run. A master owns the runs it creates, renews their lease while it
 * lives, and takes over a run only when the run has no owner, is its own (a restart with the same
 * instance id), or its owner's lease ran out (the owner died). The database is the arbiter: every
 * claim is one conditional update, and the owner's checkpoints are fenced on it.
 */
export class RunLease {
  readonly owner: string;
  readonly leaseMs: number;

  constructor(private readonly options: RunLeaseOptions) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  /** Renewals come at a third of the lease, so two can fail before it runs out. */
  get renewEveryMs(): number {
    return Math.floor(this.leaseMs / 3);
  }

  /** The ownership fields of a run this master creates. */
  newRun(now = Date.now()): { owner: string; leaseUntil: number } {
    return { owner: this.owner, leaseUntil: now + this.leaseMs };
  }

  /** Whether this master may take the run over now (it does not check the database again). */
  claimable(run: Pick<RunRow, "owner" | "leaseUntil">, now = Date.now()): boolean {
    return run.owner === null || run.owner === this.owner || run.leaseUntil === null || run.leaseUntil < now;
  }

  claim(runId: string, now = Date.now()): Promise<boolean> {
    return this.options.db.runs.claim(runId, this.owner, now, now + this.leaseMs);
  }

  /** False when another master took the run over. */
  renew(runId: string, now = Date.now()): Promise<boolean> {
    return this.options.db.runs.renewLease(runId, this.owner, now + this.leaseMs);
  }
}
