import { Worker } from "node:worker_threads";

/** Longest a script's setup() or teardown() may take before it is stopped. */
export const SCRIPT_HOOK_TIMEOUT_MS = 60_000;
/** Largest setup() result, as JSON. */
export const MAX_SETUP_DATA_BYTES = 1024 * 1024;

export class ScriptHookError extends Error {}

// Runs in its own thread: imports the bundle, calls the hook, posts its result as JSON. A hook
// that never returns (or loops) is stopped by terminating the thread, never blocking the master.
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const { writeFileSync, mkdtempSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const { pathToFileURL } = require("node:url");
process.setSourceMapsEnabled(true);
(async () => {
  const dir = mkdtempSync(join(tmpdir(), "volley-hook-"));
  try {
    const file = join(dir, "bundle.mjs");
    writeFileSync(file, workerData.bundle);
    const module = await import(pathToFileURL(file).href);
    const hook = module[workerData.hook];
    if (typeof hook !== "function") return parentPort.postMessage({ absent: true });
    const value = await hook(workerData.argument === undefined ? undefined : JSON.parse(workerData.argument));
    parentPort.postMessage({ json: value === undefined ? null : JSON.stringify(value) });
  } catch (error) {
    const stack = String(error && error.stack || error);
    const frame = stack.split("\\n").slice(1).find((line) => line.includes(dir + "/") && !line.includes("bundle.mjs"));
    const at = frame ? " (" + frame.slice(frame.indexOf(dir + "/") + dir.length + 1).replace(/\\)\\s*$/, "") + ")" : "";
    parentPort.postMessage({ error: (error && error.message || String(error)) + at });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();
`;

/**
 * Calls a bundled script's exported `setup` or `teardown` in a thread of its own, with a timeout.
 * Resolves with the JSON of its result (null for none), or undefined when the script does not
 * export the hook; rejects with a ScriptHookError saying why (the user's message and file:line).
 */
export function runScriptHook(
  bundle: string,
  hook: "setup" | "teardown",
  argument?: string,
  timeoutMs = SCRIPT_HOOK_TIMEOUT_MS,
): Promise<string | null | undefined> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(THREAD, { eval: true, workerData: { bundle, hook, argument } });
    const timer = setTimeout(() => {
      void thread.terminate();
      reject(new ScriptHookError(`${hook}() did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    thread.once("message", (message: { absent?: true; json?: string | null; error?: string }) => {
      clearTimeout(timer);
      void thread.terminate();
      if (message.error !== undefined) reject(new ScriptHookError(`${hook}() failed: ${message.error}`));
      else if (message.absent) resolve(undefined);
      else if (
        message.json !== undefined &&
        message.json !== null &&
        Buffer.byteLength(message.json) > MAX_SETUP_DATA_BYTES
      ) {
        reject(new ScriptHookError(`${hook}() returned more than ${MAX_SETUP_DATA_BYTES} bytes of JSON`));
      } else resolve(message.json ?? null);
    });
    thread.once("error", (error) => {
      clearTimeout(timer);
      reject(new ScriptHookError(`${hook}() failed: ${error.message}`));
    });
  });
}
