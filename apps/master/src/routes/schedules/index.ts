import type { ScheduleRow } from "@volley/db";
import {
  createScheduleSchema,
  parseScenario,
  parseWith,
  type ScheduleView,
  updateScheduleSchema,
  ValidationError,
  VolleyError,
} from "@volley/protocol";
import { Cron } from "croner";
import type { FastifyInstance } from "fastify";
import { newTokenId } from "../../access/secrets.js";
import { TESTER_ROUTE, VIEWER_ROUTE } from "../../plugins/route-access.js";

/** Saved tests on cron expressions: list (viewer), create, change, delete (tester). */
export async function scheduleRoutes(app: FastifyInstance): Promise<void> {
  const { db, audit, schedules } = app.services;
  const view = (row: ScheduleRow): ScheduleView => ({
    id: row.id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    scenarioName: row.fromName ?? String((JSON.parse(row.scenario ?? "{}") as { name?: unknown }).name ?? ""),
    fromName: row.fromName,
    baseline: row.baseline as ScheduleView["baseline"],
    maxRegression: row.maxRegression,
    enabled: row.enabled,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    nextRunAt: schedules.nextRun(row.id)?.toISOString() ?? null,
    lastFiredAt: row.lastFiredAt?.toISOString() ?? null,
    lastRunId: row.lastRunId,
    lastError: row.lastError,
  });

  app.get("/", { config: VIEWER_ROUTE }, async () => (await db.schedules.list()).map(view));

  app.post(
    "/",
    { config: TESTER_ROUTE, bodyLimit: app.services.config.bodyLimit * 4 },
    async (request, reply) => {
      const body = parseWith(createScheduleSchema, request.body ?? {}, "request body");
      checkCron(body.cron, body.timezone);
      // A scenario is checked now, not at 3 a.m. when it fires.
      if (typeof body.scenario !== "string") parseScenario(body.scenario);
      if (await db.schedules.byName(body.name)) {
        throw new VolleyError("VOL_ERR_EXISTS", `a schedule "${body.name}" already exists`);
      }
      const row = await db.schedules.create({
        id: newTokenId(),
        name: body.name,
        cron: body.cron,
        timezone: body.timezone,
        createdBy: request.actor.name,
        baseline: body.baseline ?? null,
        maxRegression: body.maxRegression ?? null,
        enabled: body.enabled,
        ...(typeof body.scenario === "string"
          ? { fromName: body.scenario }
          : {
              scenario: JSON.stringify(body.scenario),
              inputs: JSON.stringify({
                files: body.files,
                attachments: body.attachments,
                scripts: body.scripts,
              }),
            }),
      });
      schedules.arm(row);
      await audit.record(request.actor, "schedule.create", row.name, row.cron);
      return reply.code(201).send(view(row));
    },
  );

  app.patch<{ Params: { id: string } }>("/:id", { config: TESTER_ROUTE }, async (request) => {
    const body = parseWith(updateScheduleSchema, request.body ?? {}, "request body");
    const row = await existing(request.params.id);
    const cron = body.cron ?? row.cron;
    const timezone = body.timezone ?? row.timezone;
    checkCron(cron, timezone);
    const baseline = body.baseline === undefined ? row.baseline : body.baseline;
    const maxRegression = body.maxRegression === undefined ? row.maxRegression : body.maxRegression;
    if (maxRegression !== null && baseline === null) {
      throw new ValidationError("request body", [
        { path: "baseline", message: 'maxRegression needs a baseline ("last" or "pinned")' },
      ]);
    }
    await db.schedules.update(row.id, {
      cron,
      timezone,
      baseline,
      maxRegression,
      enabled: body.enabled ?? row.enabled,
    });
    const updated = await existing(row.id);
    schedules.arm(updated);
    await audit.record(request.actor, "schedule.update", row.name, JSON.stringify(body));
    return view(updated);
  });

  app.delete<{ Params: { id: string } }>("/:id", { config: TESTER_ROUTE }, async (request, reply) => {
    const row = await existing(request.params.id);
    schedules.disarm(row.id);
    await db.schedules.delete(row.id);
    await audit.record(request.actor, "schedule.delete", row.name);
    return reply.code(204).send();
  });

  async function existing(id: string): Promise<ScheduleRow> {
    const row = id.length <= 40 ? await db.schedules.get(id) : null;
    if (!row) throw new VolleyError("VOL_ERR_NOT_FOUND", `no schedule ${id}`);
    return row;
  }
}

/** A cron expression and time zone croner reads, or a 400 naming the field. */
function checkCron(cron: string, timezone: string): void {
  if (!knownTimeZone(timezone)) {
    throw new ValidationError("request body", [
      { path: "timezone", message: `"${timezone}" is not an IANA time zone (such as UTC or Europe/Paris)` },
    ]);
  }
  try {
    const job = new Cron(cron, { timezone, paused: true });
    // Reading the next time makes croner evaluate the whole expression now.
    job.nextRun();
    job.stop();
  } catch (error) {
    throw new ValidationError("request body", [{ path: "cron", message: (error as Error).message }]);
  }
}

function knownTimeZone(name: string): boolean {
  return name === "UTC" || Intl.supportedValuesOf("timeZone").includes(name);
}
