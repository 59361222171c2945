import type { RunFileContent } from "@volley/db";
import { type Scenario, ValidationError } from "@volley/protocol";
import {
  bundleScripts,
  type ScriptBundle,
  ScriptBundleError,
  type ScriptProblem,
} from "@volley/script/bundle";
import { typecheckScripts } from "@volley/script/typecheck";
import type { Logger } from "pino";
import { runScriptHook, ScriptHookError } from "./script-lifecycle.js";

/** The scripts a run ships (bundled, by path as written) and the sources it keeps. */
export interface RunScripts {
  bundles: Record<string, string>;
  /** The lifecycle hooks each script exports, as the bundler read them (nothing is run to know). */
  hooks: Record<string, ScriptBundle["hooks"]>;
  /** The sources as sent, kept with the run ("Run again", and what ran is on record). */
  kept: RunFileContent[];
}

/**
 * Type-checks (unless told not to) and bundles the scripts the scenario's parts name from the
 * sources sent with the run. A script that is missing, has a type error or does not compile is
 * a ValidationError naming the part's `script` field and the file, line and column; nothing is
 * written before.
 */
export async function bundleRunScripts(
  scenario: Scenario,
  sources: Record<string, string>,
  options: { typecheck: boolean } = { typecheck: true },
): Promise<RunScripts> {
  const scripts = [...new Set(scenario.parts.flatMap((part) => (part.script === null ? [] : [part.script])))];
  if (scripts.length === 0) return { bundles: {}, hooks: {}, kept: [] };
  if (options.typecheck) {
    const problems = await typecheckScripts(scripts, sources);
    if (problems.length) throw scriptProblems(scenario, problems);
  }
  try {
    const bundled = await bundleScripts(scripts, sources);
    const bundles = Object.fromEntries(Object.entries(bundled).map(([path, b]) => [path, b.code]));
    const hooks = Object.fromEntries(Object.entries(bundled).map(([path, b]) => [path, b.hooks]));
    const kept = Object.entries(sources).map(([name, text]) => ({
      kind: "script" as const,
      name,
      content: Buffer.from(text, "utf8"),
    }));
    return { bundles, hooks, kept };
  } catch (error) {
    if (!(error instanceof ScriptBundleError)) throw error;
    throw scriptProblems(scenario, error.problems);
  }
}

function scriptProblems(scenario: Scenario, problems: readonly ScriptProblem[]): ValidationError {
  return new ValidationError(
    "scenario",
    problems.map((problem) => ({ path: scriptField(scenario, problem.script), message: problem.message })),
  );
}

/** Where the scenario names this script: `script`, or `scenarios.NAME.script`. */
function scriptField(scenario: Scenario, script: string): string {
  const part = scenario.parts.find((p) => p.script === script);
  return part?.name ? `scenarios.${part.name}.script` : "script";
}

/** What a run's scripts need for their hooks: the bundles, which hooks each has, the run's env values. */
export interface RunHooks {
  bundles: Record<string, string>;
  hooks: Record<string, ScriptBundle["hooks"]>;
  env: Record<string, string>;
}

/**
 * Each script's setup(), once, in a sandboxed process of its own (see runScriptHook): the JSON
 * it returns, by script path. A setup() that throws, times out or returns too much refuses the
 * run (a ValidationError on the part's `script`), before anything is written or sent.
 */
export async function runSetups(scenario: Scenario, scripts: RunHooks): Promise<Record<string, string>> {
  const results: Record<string, string> = {};
  for (const [script, bundle] of Object.entries(scripts.bundles)) {
    if (!scripts.hooks[script]?.setup) continue;
    try {
      const json = await runScriptHook(bundle, "setup", scripts.env);
      if (json !== null) results[script] = json;
    } catch (error) {
      if (!(error instanceof ScriptHookError)) throw error;
      throw new ValidationError("scenario", [
        { path: scriptField(scenario, script), message: error.message },
      ]);
    }
  }
  return results;
}

/** Each script's teardown(setupData) once the run ended; failures are logged, never block anything. */
export async function runTeardowns(
  scripts: RunHooks & { setupData: Record<string, string> },
  runId: string,
  log: Logger,
): Promise<void> {
  for (const [script, bundle] of Object.entries(scripts.bundles)) {
    if (!scripts.hooks[script]?.teardown) continue;
    try {
      await runScriptHook(bundle, "teardown", scripts.env, scripts.setupData[script] ?? "null");
    } catch (error) {
      log.warn({ runId, script, err: (error as Error).message }, "the script's teardown() failed");
    }
  }
}
