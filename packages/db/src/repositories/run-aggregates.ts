import type { RunAggregate } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type RunAggregateRow = RunAggregate;

export class RunAggregateRepository {
  constructor(private readonly client: DbClient) {}

  /** Writes a run's aggregates in two statements, whatever their number. */
  async replace(runId: string, rows: RunAggregateRow[]): Promise<void> {
    if (!rows.length) return;
    await this.client.runAggregate.deleteMany({ where: { runId, name: { in: rows.map((r) => r.name) } } });
    await this.client.runAggregate.createMany({ data: rows });
  }

  list(runId: string): Promise<RunAggregateRow[]> {
    return this.client.runAggregate.findMany({ where: { runId }, orderBy: { rank: "asc" } });
  }
}
