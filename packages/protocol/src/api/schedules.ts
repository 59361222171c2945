import { z } from "zod";
import { parseRegressionLimits } from "./regression.js";
import { createRunBodySchema } from "./runs.js";

const sent = createRunBodySchema.shape;

/**
 * `POST /api/schedules`: a saved test run on a cron expression. `scenario` is a scenario, or the
 * name of earlier runs (each firing runs the newest one's scenario, kept files and scripts).
 * With `baseline`, each scheduled run is compared with that finished run of its name; past
 * `maxRegression` the webhook `run.regressed` fires.
 */
export const createScheduleSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    cron: z.string().trim().min(1).max(100),
    timezone: z.string().min(1).max(64).default("UTC"),
    scenario: z.union([z.string().trim().min(1).max(200), z.record(z.string(), z.unknown())]),
    files: sent.files,
    attachments: sent.attachments,
    scripts: sent.scripts,
    baseline: z.enum(["last", "pinned"]).optional(),
    maxRegression: z
      .string()
      .max(200)
      .superRefine((text, ctx) => {
        const limits = parseRegressionLimits(text, "maxRegression");
        if (typeof limits === "string")
          ctx.addIssue({ code: "custom", message: limits.replace(/^maxRegression: /, "") });
      })
      .optional(),
    enabled: z.boolean().default(true),
  })
  .superRefine((body, ctx) => {
    if (body.maxRegression !== undefined && body.baseline === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["baseline"],
        message: 'maxRegression needs a baseline ("last" or "pinned")',
      });
    }
    if (typeof body.scenario === "string" && (body.files || body.attachments || body.scripts)) {
      ctx.addIssue({
        code: "custom",
        path: ["scenario"],
        message: "a schedule by run name takes that run's files and scripts: send no files with it",
      });
    }
  });
export type CreateSchedule = z.output<typeof createScheduleSchema>;

/** `PATCH /api/schedules/:id`: its cron, time zone, baseline, limits, or whether it is enabled. */
export const updateScheduleSchema = z
  .strictObject({
    cron: z.string().trim().min(1).max(100).optional(),
    timezone: z.string().min(1).max(64).optional(),
    baseline: z.enum(["last", "pinned"]).nullable().optional(),
    maxRegression: z
      .string()
      .max(200)
      .refine((text) => typeof parseRegressionLimits(text) !== "string", {
        error: 'write METRIC=N%, such as "p95=10%"',
      })
      .nullable()
      .optional(),
    enabled: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: "give at least one field to change" });
export type UpdateSchedule = z.output<typeof updateScheduleSchema>;

/** A schedule as `GET /api/schedules` lists it. */
export interface ScheduleView {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  /** The scenario's name, or the run name it follows. */
  scenarioName: string;
  fromName: string | null;
  baseline: "last" | "pinned" | null;
  maxRegression: string | null;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
  /** When it fires next (null: disabled). */
  nextRunAt: string | null;
  lastFiredAt: string | null;
  lastRunId: string | null;
  lastError: string | null;
}
