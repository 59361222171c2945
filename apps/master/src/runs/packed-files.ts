import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { RunFiles } from "@volley/protocol";

const pack = promisify(gzip);

/**
 * A run's feeder tables, multipart files and script bundles as gzip of their JSON, base64: made once per run
 * (off the event loop) and sent to every worker in `start-run`. Null when there are none.
 */
export async function packRunFiles(files: RunFiles): Promise<string | null> {
  const empty = [files.data, files.attachments, files.scripts, files.setupData].every(
    (m) => Object.keys(m).length === 0,
  );
  if (empty) return null;
  return (await pack(Buffer.from(JSON.stringify(files)))).toString("base64");
}
