import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import type { RunFileKind } from "@volley/protocol";
import type { DbClient } from "./db-client.js";

const pack = promisify(gzip);
const unpack = promisify(gunzip);

export type { RunFileKind };

/** A file sent with a run: a feeder's text (UTF-8) or a multipart body's bytes. */
export interface RunFileContent {
  kind: RunFileKind;
  name: string;
  content: Buffer;
}

export interface RunFileInfo {
  kind: RunFileKind;
  name: string;
  bytes: number;
}

/** A file compressed by `RunFileRepository.pack`, ready to store. */
export interface PackedRunFile extends RunFileInfo {
  content: Uint8Array<ArrayBuffer>;
}

/** The files kept with each run, compressed (off the event loop: they may be tens of MB). */
export class RunFileRepository {
  constructor(private readonly client: DbClient) {}

  /**
   * Compresses files for `saveMany`, before any transaction: a write lock is not held while
   * tens of MB are compressed.
   */
  static async pack(files: RunFileContent[]): Promise<PackedRunFile[]> {
    return Promise.all(
      files.map(async (f) => ({
        kind: f.kind,
        name: f.name,
        bytes: f.content.length,
        content: Uint8Array.from(await pack(f.content)),
      })),
    );
  }

  async saveMany(runId: string, files: PackedRunFile[]): Promise<void> {
    if (files.length) await this.client.runFile.createMany({ data: files.map((f) => ({ runId, ...f })) });
  }

  async list(runId: string): Promise<RunFileInfo[]> {
    const rows = await this.client.runFile.findMany({
      where: { runId },
      select: { kind: true, name: true, bytes: true },
      orderBy: [{ kind: "asc" }, { name: "asc" }],
    });
    return rows.map((r) => ({ kind: r.kind as RunFileKind, name: r.name, bytes: r.bytes }));
  }

  async contents(runId: string): Promise<RunFileContent[]> {
    const rows = await this.client.runFile.findMany({ where: { runId } });
    return Promise.all(
      rows.map(async (r) => ({
        kind: r.kind as RunFileKind,
        name: r.name,
        content: await unpack(r.content),
      })),
    );
  }
}
