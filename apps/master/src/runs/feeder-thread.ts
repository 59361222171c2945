import { parentPort, workerData } from "node:worker_threads";
import { DataFileError, parseDataFile } from "@volley/protocol";

// A thread of its own for a run's feeder files: a 45 MB CSV took the master's event loop for
// seconds (heartbeats unread, the live feed frozen). It answers each file's columns, row count
// and rows as JSON (what the workers are sent), or the file's error.
const files = workerData as Array<{ name: string; file: string; text: string; columns?: string[] }>;
const answers = files.map(({ name, file, text, columns }) => {
  try {
    const table = parseDataFile(file, text, columns);
    return { name, columns: table.columns, rowCount: table.rows.length, json: JSON.stringify(table) };
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    return { name, error: error.message };
  }
});
parentPort?.postMessage(answers);
