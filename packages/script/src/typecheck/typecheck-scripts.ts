import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import ts from "typescript";
import type { ScriptProblem } from "../bundle/bundle-scripts.js";
import { volleyScriptDeclarations } from "./check-program.js";

export interface TypecheckOptions {
  /**
   * Where results are kept by the hash of what was checked, so checking the same sources again
   * costs a file read. @defaultValue `volley-typecheck` in the system's temporary folder
   */
  cacheDir?: string;
  /** Longest a check may take before it is given up (and nothing reported). @defaultValue 60000 */
  timeoutMs?: number;
}

/** Results by hash within this process (a master checks the same scripts run after run). */
const remembered = new Map<string, ScriptProblem[]>();
const REMEMBERED_MAX = 200;

/**
 * Type-checks the TypeScript scripts among `scripts` (see checkScripts) in a worker thread, so
 * the caller's event loop keeps serving; cached by content. Resolves with the problems found
 * (none: it checks). A check that fails to run or times out rejects.
 */
export async function typecheckScripts(
  scripts: readonly string[],
  files: Record<string, string>,
  options: TypecheckOptions = {},
): Promise<ScriptProblem[]> {
  if (!scripts.some((script) => /\.(ts|mts|cts|tsx)$/.test(script))) return [];
  const key = hashOf(scripts, files);
  const known = remembered.get(key);
  if (known) return known;
  const cacheDir = options.cacheDir ?? join(tmpdir(), `volley-typecheck-${process.getuid?.() ?? "user"}`);
  const cached = await readCached(cacheDir, key);
  const problems = cached ?? (await inWorker(scripts, files, options.timeoutMs ?? 60_000));
  if (cached === null) await writeCached(cacheDir, key, problems);
  if (remembered.size >= REMEMBERED_MAX) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, problems);
  return problems;
}

/**
 * What the checker is: bumped whenever its options or rules change, so results cached by an
 * earlier one are not taken.
 */
const CHECKER_VERSION = 2;

/** The declarations scripts are checked against (a change of the API changes every result). */
let declarations: string | null = null;
function declarationText(): string {
  declarations ??= readFileSync(volleyScriptDeclarations(), "utf8");
  return declarations;
}

/**
 * What decides the result: the checker, the compiler's version, the declarations checked against,
 * the scripts, every file with its path.
 */
function hashOf(scripts: readonly string[], files: Record<string, string>): string {
  const hash = createHash("sha256").update(
    `checker ${CHECKER_VERSION}\0typescript ${ts.version}\0${declarationText()}\0`,
  );
  for (const script of scripts) hash.update(`script ${script}\0`);
  for (const path of Object.keys(files).sort()) hash.update(`${path}\0${files[path]}\0`);
  return hash.digest("hex");
}

function inWorker(
  scripts: readonly string[],
  files: Record<string, string>,
  timeoutMs: number,
): Promise<ScriptProblem[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./typecheck-worker.js", import.meta.url), {
      workerData: { scripts: [...scripts], files },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`type-checking took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    worker.once("message", (answer: { problems?: ScriptProblem[]; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (answer.problems) resolve(answer.problems);
      else reject(new Error(`type-checking failed: ${answer.error}`));
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function readCached(dir: string, key: string): Promise<ScriptProblem[] | null> {
  try {
    const value = JSON.parse(await readFile(join(dir, `${key}.json`), "utf8")) as unknown;
    return Array.isArray(value) ? (value as ScriptProblem[]) : null;
  } catch {
    return null;
  }
}

/** Written whole or not at all (a rename), so a reader never sees half a result. A cache that cannot be written is skipped. */
async function writeCached(dir: string, key: string, problems: ScriptProblem[]): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const partial = join(dir, `${key}.${process.pid}.tmp`);
    await writeFile(partial, JSON.stringify(problems));
    await rename(partial, join(dir, `${key}.json`));
  } catch {
    // Only a cost: the next check runs the compiler again.
  }
}
