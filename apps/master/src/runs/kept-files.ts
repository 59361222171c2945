import type { Database } from "@volley/db";
import { ValidationError } from "@volley/protocol";

export interface SentFiles {
  /** Feeder files' text, by name. */
  files: Record<string, string>;
  /** Multipart files, base64, by name. */
  attachments: Record<string, string>;
  /** Script sources, by path relative to the scenario file. */
  scripts?: Record<string, string>;
}

/**
 * The files sent now, completed by those kept with run `fromRunId` ("Run again" without choosing
 * them again). A file sent now wins over the kept one of the same name.
 */
export async function withKeptFiles(db: Database, sent: SentFiles, fromRunId?: string): Promise<SentFiles> {
  if (fromRunId === undefined) return sent;
  if (!(await db.runs.get(fromRunId))) {
    throw new ValidationError("request body", [{ path: "filesFrom", message: `no run ${fromRunId}` }]);
  }
  const files = { ...sent.files };
  const attachments = { ...sent.attachments };
  const scripts = { ...sent.scripts };
  for (const kept of await db.files.contents(fromRunId)) {
    if (kept.kind === "feeder" && !Object.hasOwn(files, kept.name)) {
      files[kept.name] = kept.content.toString("utf8");
    } else if (
      (kept.kind === "attachment" || kept.kind === "certificate") &&
      !Object.hasOwn(attachments, kept.name)
    ) {
      attachments[kept.name] = kept.content.toString("base64");
    } else if (kept.kind === "script" && !Object.hasOwn(scripts, kept.name)) {
      scripts[kept.name] = kept.content.toString("utf8");
    }
  }
  return { files, attachments, scripts };
}
