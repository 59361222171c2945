import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { MAX_MASTER_MESSAGE_BYTES, parseWith, type RunFiles, runFilesSchema } from "@volley/protocol";

const unpack = promisify(gunzip);

/**
 * The feeder tables and multipart files of a `start-run`, unpacked (off the event loop, bounded
 * like a message) and validated at this edge like the rest of the message.
 */
export async function unpackRunFiles(packed: string): Promise<RunFiles> {
  const json = await unpack(Buffer.from(packed, "base64"), { maxOutputLength: MAX_MASTER_MESSAGE_BYTES });
  return parseWith(runFilesSchema, JSON.parse(json.toString("utf8")), "start-run files");
}
