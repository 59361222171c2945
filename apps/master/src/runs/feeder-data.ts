import { Worker } from "node:worker_threads";
import { type FeederTable, tableFromRows } from "@volley/protocol";

/** A feeder as a run keeps it: what checks need (columns, rows) and the rows as sent to workers (JSON). */
export interface FeederData {
  columns: string[];
  rowCount: number;
  /** The FeederTable as JSON, made once (the workers' start message embeds it as it is). */
  json: string;
}

export type FeederAnswer = (FeederData & { name: string }) | { name: string; error: string };

const THREAD = new URL("./feeder-thread.js", import.meta.url);

/** Inline rows (at most 10,000 of at most 200 fields: small) read on the spot. */
export function inlineFeeder(rows: Array<Record<string, unknown>>): FeederData {
  const table: FeederTable = tableFromRows(rows);
  return { columns: table.columns, rowCount: table.rows.length, json: JSON.stringify(table) };
}

/** Reads feeder files in a thread of its own, off the master's event loop (see feeder-thread.ts). */
export function readFeederFiles(
  files: Array<{ name: string; file: string; text: string; columns?: string[] }>,
): Promise<FeederAnswer[]> {
  if (files.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const thread = new Worker(THREAD, { workerData: files });
    let answered = false;
    thread.once("message", (answers: FeederAnswer[]) => {
      answered = true;
      resolve(answers);
      void thread.terminate();
    });
    thread.once("error", reject);
    thread.once("exit", (code) => {
      if (!answered) reject(new Error(`the feeder thread ended without an answer (exit code ${code})`));
    });
  });
}
