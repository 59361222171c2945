import type { RunSecond } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type RunSecondRow = RunSecond;
/** A row to write; `stats` (the second's merged statistics) only for request names. */
export type NewRunSecond = Omit<RunSecondRow, "stats"> & { stats?: RunSecondRow["stats"] };

export class RunSecondRepository {
  constructor(private readonly client: DbClient) {}

  async insertMany(rows: NewRunSecond[]): Promise<void> {
    if (rows.length) await this.client.runSecond.createMany({ data: rows });
  }

  /** Adds a late batch's counts to a second already written (its percentiles stay as they were). */
  async addLate(
    row: Pick<RunSecondRow, "runId" | "name" | "second" | "requests" | "failures">,
  ): Promise<void> {
    const { runId, name, second, requests, failures } = row;
    await this.client.runSecond.upsert({
      where: { runId_name_second: { runId, name, second } },
      create: {
        runId,
        name,
        second,
        requests,
        failures,
        vus: 0,
        p50Ms: null,
        p95Ms: null,
        p99Ms: null,
        stats: null,
      },
      update: { requests: { increment: requests }, failures: { increment: failures } },
    });
  }

  /**
   * Drops the per-second statistics (exact windows) of runs that finished before `before`;
   * their counts, percentiles per second and totals stay. Returns the rows cleared.
   */
  async dropStatsOfRunsBefore(before: Date): Promise<number> {
    const { count } = await this.client.runSecond.updateMany({
      where: { stats: { not: null }, run: { finishedAt: { lt: before } } },
      data: { stats: null },
    });
    return count;
  }

  /** The merged statistics of each request name's seconds in [from, to). */
  async statsBetween(runId: string, from: number, to: number): Promise<Uint8Array[]> {
    const rows = await this.client.runSecond.findMany({
      where: { runId, second: { gte: from, lt: to }, stats: { not: null } },
      select: { stats: true },
    });
    return rows.map((row) => row.stats as Uint8Array);
  }

  /** Each stored second's merged statistics with its second, in order (for the latency heatmap). */
  async statsBySecond(runId: string): Promise<Array<{ second: number; stats: Uint8Array }>> {
    const rows = await this.client.runSecond.findMany({
      where: { runId, stats: { not: null } },
      select: { second: true, stats: true },
      orderBy: { second: "asc" },
    });
    return rows.map((row) => ({ second: row.second, stats: row.stats as Uint8Array }));
  }

  list(runId: string): Promise<RunSecondRow[]> {
    return this.client.runSecond.findMany({
      where: { runId },
      orderBy: [{ second: "asc" }, { name: "asc" }],
    });
  }
}
