import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Longest a script's setup() or teardown() may take before it is stopped. */
export const SCRIPT_HOOK_TIMEOUT_MS = 60_000;
/** Largest setup() result, as JSON. */
export const MAX_SETUP_DATA_BYTES = 1024 * 1024;
/** Most bytes a hook's process may print (its console); past it the output is cut. */
const MAX_OUTPUT_BYTES = 64 * 1024;

export class ScriptHookError extends Error {}

// Runs in a process of its own under Node's permission model: it may read only the folder that
// holds the bundle, write nothing, start no process or thread, and its environment
// has only the run's env values. It imports the bundle, calls the hook and prints one line of
// JSON after a marker.
const RUNNER = `
process.setSourceMapsEnabled(true);
const dir = process.argv[1];
const [hook, argument] = [process.argv[2], process.argv[3]];
const say = (value) => process.stdout.write("\\n@@volley-hook@@" + JSON.stringify(value) + "\\n");
try {
  const module = await import(new URL("file://" + dir + "/bundle.mjs").href);
  const value = await module[hook](argument === "" ? undefined : JSON.parse(argument));
  say({ json: value === undefined ? null : JSON.stringify(value) });
} catch (error) {
  const stack = String((error && error.stack) || error);
  const frame = stack.split("\\n").slice(1).find((line) => line.includes(dir + "/") && !line.includes("bundle.mjs"));
  const at = frame ? " (" + frame.slice(frame.indexOf(dir + "/") + dir.length + 1).replace(/\\)\\s*$/, "") + ")" : "";
  say({ error: ((error && error.message) || String(error)) + at });
}
process.exit(0);
`;

// Node 20 spells the permission model with "experimental"; later versions without.
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission")
  ? "--permission"
  : "--experimental-permission";

/**
 * Calls a bundled script's exported `setup` or `teardown` (the caller knows it exists: the
 * bundler said so, nothing is run to find out) in a sandboxed child process, with a timeout.
 * No user code runs in the master's process: the child's environment is the run's `env` values
 * alone (none of the master's tokens, database or Redis URLs), it reads only its own bundle,
 * and writes no file.
 * Resolves with the JSON of its result (null for none); rejects with a ScriptHookError saying
 * why (the user's message and file:line).
 */
export async function runScriptHook(
  bundle: string,
  hook: "setup" | "teardown",
  env: Record<string, string>,
  argument?: string,
  timeoutMs = SCRIPT_HOOK_TIMEOUT_MS,
): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), "volley-hook-"));
  try {
    await writeFile(join(dir, "bundle.mjs"), bundle);
    return await runIn(dir, hook, argument ?? "", env, timeoutMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runIn(
  dir: string,
  hook: string,
  argument: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        PERMISSION_FLAG,
        `--allow-fs-read=${dir}/*`,
        "--no-warnings",
        "--input-type=module",
        "-e",
        RUNNER,
        dir,
        hook,
        argument,
      ],
      { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const take = (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT_BYTES + MAX_SETUP_DATA_BYTES * 2) output += chunk.toString();
    };
    child.stdout.on("data", take);
    child.stderr.on("data", () => undefined);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new ScriptHookError(`${hook}() did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new ScriptHookError(`${hook}() could not start: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const marker = output.lastIndexOf("\n@@volley-hook@@");
      if (marker < 0) {
        return reject(new ScriptHookError(`${hook}() ended without an answer (exit ${code ?? signal})`));
      }
      let message: { json?: string | null; error?: string };
      try {
        message = JSON.parse(output.slice(marker + 16).trim());
      } catch {
        return reject(new ScriptHookError(`${hook}() gave an answer that could not be read`));
      }
      if (message.error !== undefined) reject(new ScriptHookError(`${hook}() failed: ${message.error}`));
      else if (typeof message.json === "string" && Buffer.byteLength(message.json) > MAX_SETUP_DATA_BYTES) {
        reject(new ScriptHookError(`${hook}() returned more than ${MAX_SETUP_DATA_BYTES} bytes of JSON`));
      } else resolve(message.json ?? null);
    });
  });
}
