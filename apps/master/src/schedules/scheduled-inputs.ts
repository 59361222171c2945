import type { Database, ScheduleRow } from "@volley/db";
import { VolleyError } from "@volley/protocol";
import type { RunExtras } from "../runs/prepare-run.js";

/**
 * What a firing sends to the scheduler: the stored scenario with its files and scripts, or for a
 * schedule by run name the newest run of that name's scenario, kept files and scripts.
 */
export async function scheduledInputs(
  db: Database,
  row: ScheduleRow,
): Promise<{ input: unknown; extras: RunExtras }> {
  if (row.scenario !== null) {
    const inputs = JSON.parse(row.inputs) as Pick<RunExtras, "files" | "attachments" | "scripts">;
    return { input: JSON.parse(row.scenario), extras: inputs };
  }
  const name = row.fromName ?? "";
  const runs = await db.runs.list({ limit: 50, name });
  const newest = runs.find((r) => r.name === name && r.status !== "queued");
  if (!newest) throw new VolleyError("VOL_ERR_NOT_FOUND", `no run named "${name}" to take the scenario from`);
  // filesFrom brings its kept feeders, attachments and scripts (withKeptFiles).
  return { input: JSON.parse(newest.scenario), extras: { filesFrom: newest.id } };
}
