import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { build, type Message, type Plugin } from "esbuild";
import { CALL_SITE_KEY } from "../call-sites/index.js";
import { callSitesPlugin } from "./call-sites-plugin.js";
import { STAMP_NAME } from "./stamp-call-sites.js";

/** A script that does not bundle: where and what, for a 400 / exit 2. */
export interface ScriptProblem {
  /** The script (its path as the scenario writes it). */
  script: string;
  /** "file:line:column: message" (the file relative to the scenario's folder). */
  message: string;
}

export class ScriptBundleError extends Error {
  constructor(readonly problems: ScriptProblem[]) {
    super(problems.map((p) => `${p.script}: ${p.message}`).join("; "));
    this.name = "ScriptBundleError";
  }
}

/** A bundled script: one ES module, and the lifecycle hooks it exports (read from the bundler, not by running it). */
export interface ScriptBundle {
  code: string;
  hooks: { setup: boolean; teardown: boolean };
}

/** Most bytes of sources a run may send for its scripts. */
export const MAX_SCRIPT_SOURCE_BYTES = 20 * 1024 * 1024;

/**
 * Bundles each script with what it imports (relative files and npm packages among `files`) into
 * one ES module for Node, with an inline source map whose sources are relative to the scenario's
 * folder, so an error's stack points at `flow.ts:12:7`. Node's built-ins stay imports. `files`
 * holds the sources by path relative to the scenario's folder (as `collectScriptSources` gives
 * them); they are written to a private temporary folder that is removed afterwards.
 */
export async function bundleScripts(
  scripts: readonly string[],
  files: Record<string, string>,
): Promise<Record<string, ScriptBundle>> {
  const bytes = Object.values(files).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  if (bytes > MAX_SCRIPT_SOURCE_BYTES) {
    throw new ScriptBundleError([
      {
        script: scripts[0] ?? "scripts",
        message: `the sources are ${bytes} bytes; at most ${MAX_SCRIPT_SOURCE_BYTES}`,
      },
    ]);
  }
  // The real path: resolved imports are compared against it (a symlinked tmpdir must not look outside).
  const root = await realpath(await mkdtemp(join(tmpdir(), "volley-bundle-")));
  try {
    // Files may sit above the scenario's folder (../lib/x.ts): the folder is nested deep enough
    // inside the temporary root that every one of them still lands inside it.
    const depth = Math.max(0, ...[...Object.keys(files), ...scripts].map(upLevels));
    const base = join(root, ...Array.from({ length: depth }, (_, i) => `d${i}`));
    for (const [path, text] of Object.entries(files)) {
      const target = inside(root, base, path);
      if (target === null) {
        throw new ScriptBundleError([{ script: path, message: "a script file's path must stay relative" }]);
      }
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
    }
    const bundles: Record<string, ScriptBundle> = {};
    const problems: ScriptProblem[] = [];
    for (const script of scripts) {
      const entry = inside(root, base, script);
      if (entry === null || !(normalize(script) in normalizedKeys(files))) {
        problems.push({ script, message: `${script} was not sent with the scenario` });
        continue;
      }
      try {
        bundles[script] = await bundleOne(root, base, entry, script);
      } catch (error) {
        const messages = (error as { errors?: Message[] }).errors;
        if (!messages) throw error;
        for (const m of messages.slice(0, 10)) problems.push({ script, message: describe(m) });
      }
    }
    if (problems.length) throw new ScriptBundleError(problems);
    return bundles;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const BUILTINS = new Set(builtinModules);
const CONFINED = Symbol("confined");

/**
 * Every import must resolve to a file that was sent with the run (written under `root`), or be
 * one of Node's built-ins: an absolute path or a package beside the master would put the
 * master's own files into the bundle (`import pw from "/etc/passwd" with { type: "text" }`).
 */
function confineTo(root: string): Plugin {
  return {
    name: "volley-confine",
    setup(bundler) {
      bundler.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === CONFINED || args.kind === "entry-point") return undefined;
        const name = args.path.startsWith("node:") ? args.path.slice(5) : args.path;
        if (BUILTINS.has(name)) return { path: args.path, external: true };
        if (name === "k6" || name.startsWith("k6/")) return { errors: [{ text: k6ModuleHint(name) }] };
        const resolved = await bundler.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          with: args.with,
          pluginData: CONFINED,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const rel = relative(root, resolved.path);
        if (resolved.external || rel.startsWith("..") || isAbsolute(rel)) {
          return {
            errors: [{ text: `imports "${args.path}", which is not among the files sent with the run` }],
          };
        }
        return { ...resolved, errors: undefined, warnings: undefined, external: false };
      });
    },
  };
}

/** A k6 script's import, answered with where the same thing lives in Volley. */
function k6ModuleHint(name: string): string {
  const instead: Record<string, string> = {
    k6: "check, group and sleep are vu.check, vu.group and vu.sleep",
    "k6/http": "requests are vu.http.get/post/... (awaited)",
    "k6/metrics": "Counter, Gauge, Rate and Trend are vu.metrics.counter/gauge/rate/trend",
    "k6/ws": "WebSockets are vu.ws",
    "k6/data": "SharedArray is a feeder (data: in the scenario, vu.data in the script)",
    "k6/crypto": 'hashes and HMACs come from "node:crypto"',
    "k6/encoding": 'base64 is Buffer.from(text).toString("base64")',
  };
  return (
    `imports "${name}", a k6 module: a Volley script exports default async function (vu) and ` +
    `${instead[name] ?? "uses the vu object"}; volley convert k6 SCRIPT.js converts a k6 script (docs/migration.md)`
  );
}

async function bundleOne(root: string, base: string, entry: string, script: string): Promise<ScriptBundle> {
  const result = await build({
    plugins: [confineTo(root), callSitesPlugin(base)],
    absWorkingDir: base,
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node20",
    // Sources relative to the scenario's folder: the bundle is written there in thought.
    outdir: base,
    sourcemap: "inline",
    sourcesContent: false,
    metafile: true,
    logLevel: "silent",
    banner: {
      js: [
        // A bundled CommonJS package may require() Node's built-ins from inside the ES module.
        'import { createRequire as __volleyRequire } from "node:module"; const require = __volleyRequire(import.meta.url);',
        // Where a request was made (stampCallSites); outside the engine the stamp does nothing.
        `const ${STAMP_NAME} = globalThis[Symbol.for(${JSON.stringify(CALL_SITE_KEY)})] ?? ((_place, answer) => answer);`,
      ].join(" "),
    },
  });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
  if (!output?.exports.includes("default")) {
    throw {
      errors: [{ text: `${script} has no default export: export default async function (vu) { ... }` }],
    };
  }
  return {
    code: result.outputFiles[0].text,
    hooks: { setup: output.exports.includes("setup"), teardown: output.exports.includes("teardown") },
  };
}

function describe(message: Message): string {
  const at = message.location;
  return at ? `${at.file}:${at.line}:${at.column + 1}: ${message.text}` : message.text;
}

/** How many folders above the scenario's a relative path reaches. */
function upLevels(path: string): number {
  let level = 0;
  let deepest = 0;
  for (const part of normalize(path).split(/[\\/]/)) {
    if (part === "..") deepest = Math.max(deepest, ++level);
    else if (part !== "." && part !== "") level--;
  }
  return deepest;
}

/** Where `path` goes under `base`, or null when it is absolute or leaves `root`. */
function inside(root: string, base: string, path: string): string | null {
  if (/^([/\\]|[A-Za-z]:)/.test(path) || path.includes("\0")) return null;
  const target = join(base, path);
  const rel = relative(root, target);
  return rel.startsWith("..") || rel === "" || rel.split(sep).includes("..") ? null : target;
}

function normalizedKeys(files: Record<string, string>): Record<string, true> {
  return Object.fromEntries(Object.keys(files).map((k) => [normalize(k), true]));
}
