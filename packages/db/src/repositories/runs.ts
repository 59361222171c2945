import type { Run } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type RunRow = Run;
export type NewRun = Pick<Run, "id" | "name" | "status" | "executor" | "scenario" | "plannedDurationMs"> &
  Partial<Pick<Run, "startAt" | "startedAt">>;
export type RunUpdate = Partial<Omit<Run, "id" | "createdAt">>;

export interface RunListFilter {
  limit: number;
  /** Id of the last run of the previous page: ids sort by creation time. */
  cursor?: string;
  /** Substring of the name. */
  name?: string;
  status?: string;
}

const ACTIVE = ["queued", "running", "stopping"];

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

  /** Runs queued, running or stopping (after a restart there can be one to resume). */
  listActive(): Promise<RunRow[]> {
    return this.client.run.findMany({ where: { status: { in: ACTIVE } }, orderBy: { id: "asc" } });
  }

  async update(id: string, data: RunUpdate): Promise<void> {
    await this.client.run.update({ where: { id }, data });
  }
}
