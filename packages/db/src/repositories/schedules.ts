import type { Schedule } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type ScheduleRow = Schedule;
export type NewSchedule = Pick<Schedule, "id" | "name" | "cron" | "timezone" | "createdBy"> &
  Partial<Pick<Schedule, "scenario" | "fromName" | "inputs" | "baseline" | "maxRegression" | "enabled">>;
export type ScheduleUpdate = Partial<Omit<Schedule, "id" | "createdAt" | "createdBy">>;

export class ScheduleRepository {
  constructor(private readonly client: DbClient) {}

  create(schedule: NewSchedule): Promise<ScheduleRow> {
    return this.client.schedule.create({ data: schedule });
  }

  get(id: string): Promise<ScheduleRow | null> {
    return this.client.schedule.findUnique({ where: { id } });
  }

  byName(name: string): Promise<ScheduleRow | null> {
    return this.client.schedule.findUnique({ where: { name } });
  }

  list(): Promise<ScheduleRow[]> {
    return this.client.schedule.findMany({ orderBy: { name: "asc" } });
  }

  async update(id: string, data: ScheduleUpdate): Promise<void> {
    await this.client.schedule.update({ where: { id }, data });
  }

  /**
   * Claims the firing at `tick` for this master: true when no master claimed it (or a later
   * one) yet. Two masters on one database start one run per firing.
   */
  async claim(id: string, tick: Date): Promise<boolean> {
    const { count } = await this.client.schedule.updateMany({
      where: { id, enabled: true, OR: [{ lastFiredAt: null }, { lastFiredAt: { lt: tick } }] },
      data: { lastFiredAt: tick },
    });
    return count === 1;
  }

  async delete(id: string): Promise<boolean> {
    const { count } = await this.client.schedule.deleteMany({ where: { id } });
    return count > 0;
  }
}
