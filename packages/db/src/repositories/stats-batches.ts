import type { StatsBatch } from "../generated/sqlite/client.js";
import type { DbClient } from "./index.js";

export type StatsBatchRow = Omit<StatsBatch, "receivedAt">;

export class StatsBatchRepository {
  constructor(private readonly client: DbClient) {}

  async insertMany(rows: StatsBatchRow[]): Promise<void> {
    if (rows.length) await this.client.statsBatch.createMany({ data: rows });
  }

  /** Batches stored but not yet merged, oldest first. */
  listForRun(runId: string): Promise<StatsBatchRow[]> {
    return this.client.statsBatch.findMany({
      where: { runId },
      orderBy: [{ second: "asc" }, { seq: "asc" }],
      select: { runId: true, workerId: true, seq: true, second: true, payload: true },
    });
  }

  /** Runs with batches waiting (a restarted master resumes them). */
  async runsWithPending(): Promise<string[]> {
    const rows = await this.client.statsBatch.findMany({ distinct: ["runId"], select: { runId: true } });
    return rows.map((r) => r.runId);
  }

  async deleteMerged(runId: string, workerId: string, seqs: number[]): Promise<void> {
    if (seqs.length)
      await this.client.statsBatch.deleteMany({ where: { runId, workerId, seq: { in: seqs } } });
  }

  count(): Promise<number> {
    return this.client.statsBatch.count();
  }
}
