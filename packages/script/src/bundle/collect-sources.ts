import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { build, type Message } from "esbuild";
import { ScriptBundleError, type ScriptProblem } from "./bundle-scripts.js";

/**
 * Every source file the scripts need, by path relative to the scenario's folder: each script,
 * the files it imports, and the npm packages it imports from `node_modules` beside it (with their
 * package.json, so the master resolves them the same way). What `volley run` sends the master,
 * which bundles them (`bundleScripts`). A script that does not compile throws ScriptBundleError.
 */
export async function collectScriptSources(
  scenarioDir: string,
  scripts: readonly string[],
): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const problems: ScriptProblem[] = [];
  for (const script of scripts) {
    const entry = resolve(scenarioDir, script);
    if (!existsSync(entry)) {
      problems.push({ script, message: `cannot read ${script} (looked for ${entry})` });
      continue;
    }
    try {
      const result = await build({
        absWorkingDir: scenarioDir,
        entryPoints: [entry],
        bundle: true,
        write: false,
        platform: "node",
        format: "esm",
        metafile: true,
        logLevel: "silent",
      });
      for (const input of Object.keys(result.metafile.inputs)) {
        const absolute = resolve(scenarioDir, input);
        files[relative(scenarioDir, absolute)] = readFileSync(absolute, "utf8");
        const manifest = packageManifest(absolute);
        if (manifest) files[relative(scenarioDir, manifest)] = readFileSync(manifest, "utf8");
      }
    } catch (error) {
      const messages = (error as { errors?: Message[] }).errors;
      if (!messages) throw error;
      for (const m of messages.slice(0, 10)) {
        const at = m.location;
        problems.push({ script, message: at ? `${at.file}:${at.line}:${at.column + 1}: ${m.text}` : m.text });
      }
    }
  }
  if (problems.length) throw new ScriptBundleError(problems);
  return files;
}

/** The package.json of the npm package a file belongs to, when it is inside node_modules. */
function packageManifest(file: string): string | null {
  const parts = file.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return null;
  const scoped = parts[at + 1]?.startsWith("@");
  const packageDir = parts.slice(0, at + (scoped ? 3 : 2)).join(sep);
  const manifest = join(packageDir, "package.json");
  return existsSync(manifest) ? manifest : null;
}
