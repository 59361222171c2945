import type { Database, ScheduleRow } from "@volley/db";
import {
  compareWithBaseline,
  parseRegressionLimits,
  type RegressionLimits,
  type RunDetail,
} from "@volley/protocol";
import { latencyShifts } from "@volley/stats";
import { Cron } from "croner";
import type { Logger } from "pino";
import type { Actor } from "../access/actor.js";
import type { AuditLog } from "../access/audit-log.js";
import { findBaselineRun } from "../runs/baseline-run.js";
import type { RunScheduler } from "../runs/run-scheduler.js";
import type { RunWebhooks } from "../runs/run-webhooks.js";
import { scheduledInputs } from "./scheduled-inputs.js";

/** The limits a scheduled run with a baseline and no `maxRegression` is judged by (as `volley run --baseline`). */
const DEFAULT_LIMITS: RegressionLimits = { p95: 10, rps: 5, errorRate: 1 };
/** Who a schedule's runs and firings are recorded as. */
export const scheduleActor = (name: string): Actor => ({
  name: `schedule:${name}`,
  role: "tester",
  via: "open",
});

export interface ScheduleRunnerDeps {
  db: Database;
  scheduler: RunScheduler;
  audit: AuditLog;
  webhooks: RunWebhooks;
  log: Logger;
}

/**
 * Fires saved tests on their cron expressions (croner): each firing queues a run (so one whose
 * workers are busy waits its turn) recorded as started by `schedule:NAME`. When such a run
 * finishes and its schedule has a baseline, it is judged as `volley run --baseline` judges, and
 * a regression fires the webhook `run.regressed`. With several masters on one database, each
 * firing is claimed in the database first, so it starts one run.
 */
export class ScheduleRunner {
  private readonly jobs = new Map<string, Cron>();

  constructor(private readonly deps: ScheduleRunnerDeps) {}

  async start(): Promise<void> {
    for (const row of await this.deps.db.schedules.list()) this.arm(row);
  }

  stop(): void {
    for (const job of this.jobs.values()) job.stop();
    this.jobs.clear();
  }

  /** (Re)arms a schedule as stored: a disabled one is only disarmed. */
  arm(row: ScheduleRow): void {
    this.disarm(row.id);
    if (!row.enabled) return;
    const job = new Cron(row.cron, { timezone: row.timezone, protect: true }, () => this.fire(row.id));
    this.jobs.set(row.id, job);
  }

  disarm(id: string): void {
    this.jobs.get(id)?.stop();
    this.jobs.delete(id);
  }

  nextRun(id: string): Date | null {
    return this.jobs.get(id)?.nextRun() ?? null;
  }

  private async fire(id: string): Promise<void> {
    const { db, scheduler, log, audit } = this.deps;
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    try {
      const row = await db.schedules.get(id);
      if (!row?.enabled || !(await db.schedules.claim(id, tick))) return;
      // A firing whose previous run still waits for its turn adds none: a schedule faster than
      // its runs would otherwise grow the queue without end.
      const previous = row.lastRunId ? await db.runs.get(row.lastRunId) : null;
      if (previous?.status === "queued") {
        await db.schedules.update(id, {
          lastError: `skipped: the previous run ${previous.id} still waits in the queue`,
        });
        log.info(
          { schedule: row.name, runId: previous.id },
          "schedule firing skipped: its previous run is still queued",
        );
        return;
      }
      try {
        const { input, extras } = await scheduledInputs(db, row);
        const created = await scheduler.create(input, {
          ...extras,
          queue: true,
          startedBy: `schedule:${row.name}`,
        });
        await db.schedules.update(id, { lastRunId: created.id, lastError: null });
        await audit.record(
          scheduleActor(row.name),
          "schedule.fire",
          row.name,
          `${created.id} ${created.status}`,
        );
        log.info({ schedule: row.name, runId: created.id, status: created.status }, "schedule fired");
      } catch (error) {
        const message = (error as Error).message;
        await db.schedules.update(id, { lastError: message });
        log.warn({ schedule: row.name, err: message }, "a scheduled run could not start");
      }
    } catch (error) {
      log.warn({ scheduleId: id, err: (error as Error).message }, "schedule firing failed");
    }
  }

  /** A run ended: a scheduled one with a baseline is judged, and a regression is announced. */
  async runFinished(run: RunDetail): Promise<void> {
    if (!run.startedBy?.startsWith("schedule:") || run.status !== "finished") return;
    const { db, scheduler, webhooks, log } = this.deps;
    const row = await db.schedules.byName(run.startedBy.slice("schedule:".length));
    if (!row?.baseline) return;
    const baseline = await findBaselineRun(db, run, row.baseline as "last" | "pinned");
    if (!baseline) {
      log.info(
        { schedule: row.name, runId: run.id },
        `no ${row.baseline} baseline to judge the scheduled run against`,
      );
      return;
    }
    const [a, b] = await Promise.all([scheduler.detailAndStats(baseline), scheduler.detailAndStats(run.id)]);
    if (!a || !b) return;
    const parsed = row.maxRegression ? parseRegressionLimits(row.maxRegression) : DEFAULT_LIMITS;
    const limits = typeof parsed === "string" ? DEFAULT_LIMITS : parsed;
    const shift = latencyShifts(a.stats.total(), b.stats.total());
    const judged = compareWithBaseline(b.detail, a.detail, limits, shift);
    const regressed = judged.filter((r) => r.regressed);
    log.info(
      { schedule: row.name, runId: run.id, baseline, regressed: regressed.length },
      "scheduled run judged",
    );
    if (regressed.length > 0) webhooks.runRegressed(b.detail, baseline, regressed);
  }
}
