import type { Database, RunRow, RunUpdate } from "@volley/db";
import type { RunStatus } from "@volley/protocol";

/**
 * A run's life, as one state machine: its statuses, the events that move it and where each may
 * happen. Every status a run is written with comes through `RunLifecycle.apply`, which checks the
 * move against this table, writes it with what it records and tells the live feed.
 *
 *   (new) ─queue─▶ queued ─start─▶ running ─stop─▶ stopping
 *     │              │ ╲cancel╲       │ ╲             │
 *     └────start─────┼──▶running       │  end─▶ finished | aborted | failed ◀─end─┘
 *                    └─fail─▶ failed ◀─fail─┘
 */
export type RunEvent =
  /** Written to wait its turn. */
  | "queue"
  /** Its slices went to the workers. */
  | "start"
  /** Asked to stop (`stopReason` says why); it ends once its workers' last batches are merged. */
  | "stop"
  /** Taken out of the queue before it started. */
  | "cancel"
  /** Could not start, or nothing of it can go on (the master stopped before its turn). */
  | "fail"
  /** Every batch merged: finished, aborted when it was stopped early, failed when nothing ran. */
  | "end";

/** Why a run was asked to stop, as `stopReason` records it. */
export type StopReason = "user" | "deadline" | "threshold" | "script" | "capacity" | "cancelled";

interface Transition {
  /** Where it may happen (null: a run not written yet). */
  from: ReadonlyArray<RunStatus | null>;
  /** Where it leads; an event with several ends says which when it is applied. */
  to: readonly RunStatus[];
}

export const RUN_TRANSITIONS: Readonly<Record<RunEvent, Transition>> = {
  queue: { from: [null], to: ["queued"] },
  start: { from: [null, "queued"], to: ["running"] },
  // A second stop (a user's after a deadline's) keeps the first reason.
  stop: { from: ["running", "stopping"], to: ["stopping"] },
  cancel: { from: ["queued"], to: ["aborted"] },
  fail: { from: [null, "queued", "running", "stopping"], to: ["failed"] },
  end: { from: ["running", "stopping"], to: ["finished", "aborted", "failed"] },
};

/** A move the table does not allow: a bug, never a user's mistake. */
export class IllegalRunTransitionError extends Error {
  constructor(from: RunStatus | null, event: RunEvent, to: RunStatus | undefined) {
    super(`a run cannot ${event} from ${from ?? "nothing"}${to ? ` to ${to}` : ""}`);
    this.name = "IllegalRunTransitionError";
  }
}

/** The status `event` takes a run in `from` to (`to` chooses among several ends), or throws. */
export function nextStatus(from: RunStatus | null, event: RunEvent, to?: RunStatus): RunStatus {
  const transition = RUN_TRANSITIONS[event];
  const target = to ?? (transition.to.length === 1 ? transition.to[0] : undefined);
  if (!transition.from.includes(from) || target === undefined || !transition.to.includes(target)) {
    throw new IllegalRunTransitionError(from, event, to);
  }
  return target;
}

/** What decides how a run whose batches are all merged ends. */
export interface RunOutcomeInput {
  stopReason: string | null;
  workers: number;
  /** Workers that refused the run, with the first one's reason. */
  refused: number;
  firstRefusal: string | null;
  requests: number;
  allLost: boolean;
  /** Why a worker's engine thread stopped the run, if one did. */
  blocked: string | null;
}

/**
 * How a run ends: failed when no worker could run it (every one refused, or every one lost
 * before a request was counted), aborted when it was stopped early (a capacity search that found
 * its answer ends as planned), finished otherwise.
 */
export function runOutcome(input: RunOutcomeInput): { status: RunStatus; error: string | null } {
  if (input.refused === input.workers) {
    return { status: "failed", error: input.firstRefusal ?? "every worker refused the run" };
  }
  if (input.requests === 0 && input.allLost) {
    return { status: "failed", error: "every worker of the run was lost" };
  }
  const stoppedEarly = input.stopReason !== null && input.stopReason !== "capacity";
  return { status: stoppedEarly ? "aborted" : "finished", error: input.blocked };
}

/** What the runs table offers a transition: the database's, or a transaction's. */
export type RunWriter = Pick<Database["runs"], "update" | "updateOwned">;

/**
 * Applies a run's transitions: checks each against RUN_TRANSITIONS, writes the status with what
 * the transition records (`finishedAt` for the ends, `stopReason` for stop and cancel), and has
 * the live feed told once it is written.
 */
export class RunLifecycle {
  constructor(
    private readonly runs: RunWriter,
    /** Tells the live feed (and so the dashboards) the run's new status. */
    private readonly publish: (runId: string) => Promise<void>,
  ) {}

  /**
   * Moves `run` (its current status; null for one not written yet) by `event`, writing `fields`
   * with it. `options.to` picks the end of `end`; `options.writer` writes inside a transaction
   * (the live feed is then told by `published`, once it committed); `options.owner` writes only
   * while this master owns the run.
   */
  async apply(
    run: Pick<RunRow, "id"> & { status: string | null },
    event: RunEvent,
    fields: RunUpdate = {},
    options: { to?: RunStatus; writer?: RunWriter; owner?: string } = {},
  ): Promise<RunStatus> {
    const status = nextStatus(run.status as RunStatus | null, event, options.to);
    const ends = status === "finished" || status === "aborted" || status === "failed";
    const update: RunUpdate = {
      ...(ends && event !== "end" ? { finishedAt: new Date() } : {}),
      ...fields,
      status,
    };
    const writer = options.writer ?? this.runs;
    if (options.owner !== undefined) await writer.updateOwned(run.id, options.owner, update);
    else await writer.update(run.id, update);
    if (options.writer === undefined) await this.published(run.id);
    return status;
  }

  /** The live feed hears of a status written inside a transaction, once it committed. */
  async published(runId: string): Promise<void> {
    await this.publish(runId).catch(() => undefined);
  }
}
