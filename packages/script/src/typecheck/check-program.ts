import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, posix } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { ScriptProblem } from "../bundle/bundle-scripts.js";

/** Where the sent files seem to be while they are checked (never read from disk). */
const ROOT = "/volley-scripts/";

/** Most diagnostics reported per run: the first ones are what a person fixes first. */
export const MAX_TYPE_PROBLEMS = 20;

const require = createRequire(import.meta.url);

/**
 * This package's own declarations, which scripts are checked against: dist/index.d.ts beside
 * dist/typecheck/ once built, src/index.ts (types only) when run from the sources.
 */
export function volleyScriptDeclarations(): string {
  const built = fileURLToPath(new URL("../index.d.ts", import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL("../index.ts", import.meta.url));
}

/** The type declarations a script is checked against: @volley/script's own, and Node's. */
function declarationPaths(): { volleyScript: string; typeRoots: string } {
  return {
    volleyScript: volleyScriptDeclarations(),
    typeRoots: dirname(dirname(require.resolve("@types/node/package.json"))),
  };
}

/**
 * Type-checks each TypeScript script (and what it imports) among `files` (sources by path
 * relative to the scenario's folder) against `@volley/script` and Node's types, with the
 * compiler API, nothing written. An import that resolves to nothing is typed `any` (the bundler
 * reports what cannot be found). Problems are `file.ts:LINE:COL: message`.
 */
export function checkScripts(scripts: readonly string[], files: Record<string, string>): ScriptProblem[] {
  // A script not sent is the bundler's to report ("was not sent with the scenario").
  const sent = new Set(Object.keys(files).map((path) => posix.normalize(path)));
  const roots = scripts.filter(
    (script) => /\.(ts|mts|cts|tsx)$/.test(script) && sent.has(posix.normalize(script)),
  );
  if (roots.length === 0) return [];
  const { volleyScript, typeRoots } = declarationPaths();
  const virtual = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) virtual.set(posix.join(ROOT, path), text);
  // Imports nothing resolves are `any`: the bundler has its own word on them.
  const shim = posix.join(ROOT, "__volley_unresolved__.d.ts");
  virtual.set(shim, 'declare module "*";\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: ["node"],
    typeRoots: [typeRoots],
    strict: true,
    // `export default async function (vu)` without a type is accepted (vu is then unchecked).
    noImplicitAny: false,
    skipLibCheck: true,
    noEmit: true,
    allowJs: true,
    checkJs: false,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    paths: { "@volley/script": [volleyScript] },
  };
  const host = ts.createCompilerHost(options, true);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (file) => virtual.get(file) ?? (file.startsWith(ROOT) ? undefined : read(file));
  host.fileExists = (file) => virtual.has(file) || (!file.startsWith(ROOT) && exists(file));
  host.getCurrentDirectory = () => ROOT;
  host.directoryExists = (dir) =>
    dir.startsWith(ROOT)
      ? [...virtual.keys()].some((f) => f.startsWith(`${dir}/`))
      : ts.sys.directoryExists(dir);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError) => {
    const text = virtual.get(file);
    if (text !== undefined) return ts.createSourceFile(file, text, language, true);
    return file.startsWith(ROOT) ? undefined : getSourceFile(file, language, onError);
  };
  const program = ts.createProgram({
    rootNames: [...roots.map((script) => posix.join(ROOT, script)), shim],
    options,
    host,
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error);
  return diagnostics.slice(0, MAX_TYPE_PROBLEMS).map((diagnostic) => ({
    script: scriptOf(diagnostic.file?.fileName, roots),
    message: describe(diagnostic),
  }));
}

/** `file.ts:LINE:COL: message`, the file as the scenario's folder names it. */
function describe(diagnostic: ts.Diagnostic): string {
  const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0];
  if (!diagnostic.file || diagnostic.start === undefined) return text;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${relativeName(diagnostic.file.fileName)}:${line + 1}:${character + 1}: ${text}`;
}

function relativeName(file: string): string {
  return file.startsWith(ROOT) ? file.slice(ROOT.length) : file;
}

/** The script a diagnostic belongs to: its own file when it is one, else the first script. */
function scriptOf(file: string | undefined, roots: readonly string[]): string {
  const name = file === undefined ? "" : relativeName(file);
  return roots.find((root) => posix.normalize(root) === posix.normalize(name)) ?? roots[0];
}
