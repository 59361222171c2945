import type { Database } from "@volley/db";
import type { RunDetail } from "@volley/protocol";

/**
 * The id of the finished run `run` is judged against: `last`, the newest other finished run of
 * its name; `pinned`, the one pinned as its name's baseline (not itself).
 */
export async function findBaselineRun(
  db: Database,
  run: Pick<RunDetail, "id" | "name">,
  which: "last" | "pinned",
): Promise<string | null> {
  const rows = await db.runs.list({ limit: 200, name: run.name, status: "finished" });
  const same = rows.filter((r) => r.name === run.name && r.id !== run.id);
  const found = which === "pinned" ? same.find((r) => r.pinned) : same[0];
  return found?.id ?? null;
}
