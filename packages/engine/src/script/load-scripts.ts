import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { VuScript } from "@volley/script";
import { installCallSiteStamp } from "./call-stamps.js";

/** A script ready to run: its default export, and where its stack frames point. */
export interface LoadedScript {
  /** The path the scenario names it by. */
  name: string;
  run: VuScript;
  /** What the script's setup() returned on the master (undefined without one). */
  setupData: unknown;
  /** Stack frames of the script's own files start with this folder (then `flow.ts:12:7`). */
  frameRoot: string;
}

/**
 * Imports each bundle the master made (one ES module with an inline source map) into this
 * thread. Source maps are switched on so an error's stack points at the user's file and line;
 * the stamp its calls give their place with is installed first.
 * The module file is removed once imported (Node has read it and its map).
 */
export async function loadScripts(
  bundles: Record<string, string>,
  setupData: Record<string, string> = {},
): Promise<Record<string, LoadedScript>> {
  const loaded: Record<string, LoadedScript> = {};
  if (Object.keys(bundles).length === 0) return loaded;
  process.setSourceMapsEnabled(true);
  installCallSiteStamp();
  const dir = await mkdtemp(join(tmpdir(), "volley-script-"));
  try {
    let n = 0;
    for (const [name, code] of Object.entries(bundles)) {
      const file = join(dir, `bundle-${n++}.mjs`);
      await writeFile(file, code);
      const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
      if (typeof module.default !== "function") {
        throw new Error(
          `${name}: the default export is not a function (export default async function (vu) { ... })`,
        );
      }
      const data = Object.hasOwn(setupData, name) ? JSON.parse(setupData[name]) : undefined;
      loaded[name] = { name, run: module.default as VuScript, setupData: data, frameRoot: `${dir}/` };
    }
    return loaded;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** "message (flow.ts:12:7)": the error and the first frame in the script's own files. */
export function describeScriptError(error: unknown, frameRoot: string): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const location = error instanceof Error ? scriptFrame(error.stack ?? "", frameRoot) : null;
  return location === null ? message : `${message} (${location})`;
}

/** The first frame of a stack in the script's own files ("flow.ts:12:7"), or null. */
function scriptFrame(stack: string, frameRoot: string): string | null {
  for (const line of stack.split("\n").slice(1)) {
    const at = line.indexOf(frameRoot);
    if (at < 0) continue;
    const location = line.slice(at + frameRoot.length).replace(/\)\s*$/, "");
    if (!location.startsWith("bundle-")) return location;
  }
  return null;
}
