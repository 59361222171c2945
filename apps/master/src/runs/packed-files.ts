import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { RunFiles } from "@volley/protocol";

const pack = promisify(gzip);

/**
 * A run's feeder tables and multipart files as gzip of their JSON, base64: made once per run
 * (off the event loop) and sent to every worker in `start-run`. Null when there are none.
 */
export async function packRunFiles(files: RunFiles): Promise<string | null> {
  if (Object.keys(files.data).length === 0 && Object.keys(files.attachments).length === 0) return null;
  return (await pack(Buffer.from(JSON.stringify(files)))).toString("base64");
}
