import { ACTIVE_RUN_STATUSES } from "@volley/protocol";
import type { Run } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type RunRow = Run;
export type NewRun = Pick<Run, "id" | "name" | "status" | "executor" | "scenario" | "plannedDurationMs"> &
  Partial<Pick<Run, "startAt" | "startedAt" | "owner" | "leaseUntil" | "startedBy">>;
export type RunUpdate = Partial<Omit<Run, "id" | "createdAt">>;

export interface RunListFilter {
  limit: number;
  /** Id of the last run of the previous page: ids sort by creation time. */
  cursor?: string;
  /** Substring of the name. */
  name?: string;
  status?: string;
}

const ACTIVE = [...ACTIVE_RUN_STATUSES];

export class RunRepository {
  constructor(private readonly client: DbClient) {}

  create(run: NewRun): Promise<RunRow> {
    return this.client.run.create({ data: run });
  }

  get(id: string): Promise<RunRow | null> {
    return this.client.run.findUnique({ where: { id } });
  }

  /** Newest first. */
  list(filter: RunListFilter): Promise<RunRow[]> {
    return this.client.run.findMany({
      where: {
        ...(filter.cursor ? { id: { lt: filter.cursor } } : {}),
        ...(filter.name ? { name: { contains: filter.name } } : {}),
        ...(filter.status ? { status: filter.status } : {}),
      },
      orderBy: { id: "desc" },
      take: filter.limit,
    });
  }

  /** Makes a run the pinned baseline of its name (and no other run of that name). */
  async pin(id: string, name: string): Promise<void> {
    await this.client.run.updateMany({ where: { name, pinned: true, NOT: { id } }, data: { pinned: false } });
    await this.client.run.update({ where: { id }, data: { pinned: true } });
  }

  /** Runs queued, running or stopping (after a restart there can be one to resume). */
  listActive(): Promise<RunRow[]> {
    return this.client.run.findMany({ where: { status: { in: ACTIVE } }, orderBy: { id: "asc" } });
  }

  async update(id: string, data: RunUpdate): Promise<void> {
    await this.client.run.update({ where: { id }, data });
  }

  /**
   * Updates a run only while `owner` owns it; throws RunNotOwnedError otherwise, so a master that
   * lost its lease can never overwrite the new owner's figures (the transaction rolls back).
   */
  async updateOwned(id: string, owner: string, data: RunUpdate): Promise<void> {
    const { count } = await this.client.run.updateMany({ where: { id, owner }, data });
    if (count !== 1) throw new RunNotOwnedError(id, owner);
  }

  /**
   * Takes a run for `owner` until `leaseUntil` when it has no owner, is already its own, or its
   * owner's lease ran out at `now`. One conditional update: two masters racing, one wins.
   */
  async claim(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const { count } = await this.client.run.updateMany({
      where: {
        id,
        status: { in: ACTIVE },
        OR: [{ owner: null }, { owner }, { leaseUntil: null }, { leaseUntil: { lt: now } }],
      },
      data: { owner, leaseUntil },
    });
    return count === 1;
  }

  /** Extends the lease of a run `owner` still owns; false when it owns it no more. */
  async renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const { count } = await this.client.run.updateMany({ where: { id, owner }, data: { leaseUntil } });
    return count === 1;
  }
}

/** A write to a run this master does not own (any more). */
export class RunNotOwnedError extends Error {
  constructor(
    readonly runId: string,
    readonly owner: string,
  ) {
    super(`run ${runId} is not owned by ${owner}`);
  }
}
