import { Prisma, type RunSecond } from "../generated/sqlite/client.js";
import type { DatabaseProvider, DbClient } from "./db-client.js";

export type RunSecondRow = RunSecond;
/**
 * A row to write; `stats` (the second's merged statistics) for request names and for the whole
 * run (name "": every request of the second merged, which the latency heatmap reads alone).
 */
export type NewRunSecond = Omit<RunSecondRow, "stats"> & { stats?: RunSecondRow["stats"] };

export class RunSecondRepository {
  constructor(
    private readonly client: DbClient,
    private readonly provider: DatabaseProvider,
  ) {}

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

  /** The merged statistics of each request name's seconds in [from, to) (not the whole run's). */
  async statsBetween(runId: string, from: number, to: number): Promise<Uint8Array[]> {
    const rows = await this.statsWhere(
      Prisma.sql`"runId" = ${runId} AND "name" <> '' AND "second" >= ${from} AND "second" < ${to}`,
    );
    return rows.map((row) => row.stats);
  }

  /**
   * Each stored second's merged statistics with its second, in order (for the latency heatmap):
   * the whole run's (`name` ""), or every name's (runs stored before the whole run's were kept).
   */
  async statsBySecond(
    runId: string,
    of: "run" | "names",
  ): Promise<Array<{ second: number; stats: Uint8Array }>> {
    return this.statsWhere(
      of === "run"
        ? Prisma.sql`"runId" = ${runId} AND "name" = ''`
        : Prisma.sql`"runId" = ${runId} AND "name" <> ''`,
    );
  }

  /**
   * Rows' statistics, in order of their second, read as hex text and decoded here: Prisma turns
   * a Bytes column into a Uint8Array at ~16 MB/s (an hour's heatmap rows took a second), text
   * comes ~10x faster.
   */
  private async statsWhere(filter: Prisma.Sql): Promise<Array<{ second: number; stats: Uint8Array }>> {
    const hex = Prisma.raw(this.provider === "sqlite" ? `hex("stats")` : `encode("stats", 'hex')`);
    const rows = await this.client.$queryRaw<Array<{ second: number | bigint; hex: string }>>`
      SELECT "second", ${hex} AS "hex" FROM "RunSecond"
      WHERE "stats" IS NOT NULL AND ${filter} ORDER BY "second"`;
    return rows.map((row) => ({ second: Number(row.second), stats: Buffer.from(row.hex, "hex") }));
  }

  /** A run's rows without their statistics (the time series: counts and percentiles). */
  list(runId: string): Promise<Array<Omit<RunSecondRow, "stats">>> {
    return this.client.runSecond.findMany({
      where: { runId },
      omit: { stats: true },
      orderBy: [{ second: "asc" }, { name: "asc" }],
    });
  }
}
