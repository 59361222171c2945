import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { FeederData } from "./feeder-data.js";

const pack = promisify(gzip);

/** What a run ships to every worker besides its scenario (the `RunFiles` of the start message, packed). */
export interface RunFilesToPack {
  data: Record<string, FeederData>;
  attachments: Record<string, string>;
  scripts: Record<string, string>;
  setupData: Record<string, string>;
}

/**
 * A run's feeder tables, multipart files and script bundles as gzip of their JSON (`RunFiles`),
 * base64: made once per run and sent to every worker in `start-run`. Null when there are none.
 * The feeders' JSON was made where they were read (off the event loop) and is spliced in as it
 * is; gzip runs in libuv's pool.
 */
export async function packRunFiles(files: RunFilesToPack): Promise<string | null> {
  const empty = [files.data, files.attachments, files.scripts, files.setupData].every(
    (m) => Object.keys(m).length === 0,
  );
  if (empty) return null;
  const data = Object.entries(files.data)
    .map(([name, feeder]) => `${JSON.stringify(name)}:${feeder.json}`)
    .join(",");
  const json =
    `{"data":{${data}},"attachments":${JSON.stringify(files.attachments)},` +
    `"scripts":${JSON.stringify(files.scripts)},"setupData":${JSON.stringify(files.setupData)}}`;
  return (await pack(Buffer.from(json))).toString("base64");
}
