import type { RunAggregate } from "../generated/sqlite/client.js";
import type { DbClient } from "./index.js";

export type RunAggregateRow = RunAggregate;

export class RunAggregateRepository {
  constructor(private readonly client: DbClient) {}

  async upsert(row: RunAggregateRow): Promise<void> {
    const { runId, name } = row;
    await this.client.runAggregate.upsert({
      where: { runId_name: { runId, name } },
      create: row,
      update: { stats: row.stats, method: row.method, rank: row.rank },
    });
  }

  list(runId: string): Promise<RunAggregateRow[]> {
    return this.client.runAggregate.findMany({ where: { runId }, orderBy: { rank: "asc" } });
  }
}
