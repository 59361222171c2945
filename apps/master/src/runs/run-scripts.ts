import type { RunFileContent } from "@volley/db";
import { type Scenario, ValidationError } from "@volley/protocol";
import { bundleScripts, ScriptBundleError } from "@volley/script/bundle";
import type { Logger } from "pino";
import { runScriptHook, ScriptHookError } from "./script-lifecycle.js";

/** The scripts a run ships (bundled, by path as written) and the sources it keeps. */
export interface RunScripts {
  bundles: Record<string, string>;
  /** The sources as sent, kept with the run ("Run again", and what ran is on record). */
  kept: RunFileContent[];
}

/**
 * Bundles the scripts the scenario's parts name from the sources sent with the run. A script
 * that is missing or does not compile is a ValidationError naming the part's `script` field and
 * the file, line and column; nothing is written before.
 */
export async function bundleRunScripts(
  scenario: Scenario,
  sources: Record<string, string>,
): Promise<RunScripts> {
  const scripts = [...new Set(scenario.parts.flatMap((part) => (part.script === null ? [] : [part.script])))];
  if (scripts.length === 0) return { bundles: {}, kept: [] };
  try {
    const bundles = await bundleScripts(scripts, sources);
    const kept = Object.entries(sources).map(([name, text]) => ({
      kind: "script" as const,
      name,
      content: Buffer.from(text, "utf8"),
    }));
    return { bundles, kept };
  } catch (error) {
    if (!(error instanceof ScriptBundleError)) throw error;
    throw new ValidationError(
      "scenario",
      error.problems.map((problem) => ({
        path: scriptField(scenario, problem.script),
        message: problem.message,
      })),
    );
  }
}

/** Where the scenario names this script: `script`, or `scenarios.NAME.script`. */
function scriptField(scenario: Scenario, script: string): string {
  const part = scenario.parts.find((p) => p.script === script);
  return part?.name ? `scenarios.${part.name}.script` : "script";
}

/**
 * Each script's setup(), once, in a thread of its own: the JSON it returns, by script path. A
 * setup() that throws, times out or returns too much refuses the run (a ValidationError on the
 * part's `script`), before anything is written or sent.
 */
export async function runSetups(
  scenario: Scenario,
  bundles: Record<string, string>,
): Promise<Record<string, string>> {
  const results: Record<string, string> = {};
  for (const [script, bundle] of Object.entries(bundles)) {
    try {
      const json = await runScriptHook(bundle, "setup");
      if (json !== undefined && json !== null) results[script] = json;
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
  scripts: { bundles: Record<string, string>; setupData: Record<string, string> },
  runId: string,
  log: Logger,
): Promise<void> {
  for (const [script, bundle] of Object.entries(scripts.bundles)) {
    try {
      await runScriptHook(bundle, "teardown", scripts.setupData[script] ?? "null");
    } catch (error) {
      log.warn({ runId, script, err: (error as Error).message }, "the script's teardown() failed");
    }
  }
}
