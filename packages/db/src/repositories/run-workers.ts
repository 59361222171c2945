import type { RunWorker } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type RunWorkerRow = RunWorker;
export type NewRunWorker = Pick<
  RunWorker,
  "runId" | "workerId" | "name" | "host" | "threads" | "vus" | "status"
>;
export type RunWorkerUpdate = Partial<Omit<RunWorker, "runId" | "workerId">>;

export class RunWorkerRepository {
  constructor(private readonly client: DbClient) {}

  async createMany(rows: NewRunWorker[]): Promise<void> {
    await this.client.runWorker.createMany({ data: rows });
  }

  list(runId: string): Promise<RunWorkerRow[]> {
    return this.client.runWorker.findMany({ where: { runId }, orderBy: { name: "asc" } });
  }

  async update(runId: string, workerId: string, data: RunWorkerUpdate): Promise<void> {
    await this.client.runWorker.update({ where: { runId_workerId: { runId, workerId } }, data });
  }
}
