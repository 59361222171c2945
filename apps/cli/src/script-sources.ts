import { dirname, resolve } from "node:path";
import type { Scenario } from "@volley/protocol";
import { collectScriptSources, ScriptBundleError, type ScriptProblem } from "@volley/script/bundle";
import { typecheckScripts } from "@volley/script/typecheck";
import { UsageError } from "./cli-error.js";

/**
 * The sources of the scripts the scenario's parts name, with what they import (relative files,
 * and npm packages installed beside them), by path relative to the scenario file: the master
 * bundles them. With `typecheck`, TypeScript scripts are type-checked against `@volley/script`
 * here, before anything starts. A script that is missing, has a type error or does not compile
 * is a UsageError (exit 2) naming the field, file, line and column.
 */
export async function scriptSources(
  scenario: Scenario,
  scenarioFile: string,
  options: { typecheck: boolean },
): Promise<Record<string, string>> {
  const scripts = [...new Set(scenario.parts.flatMap((part) => (part.script === null ? [] : [part.script])))];
  if (scripts.length === 0) return {};
  let sources: Record<string, string>;
  try {
    sources = await collectScriptSources(dirname(resolve(scenarioFile)), scripts);
  } catch (error) {
    if (!(error instanceof ScriptBundleError)) throw error;
    throw problemsError(scenario, error.problems);
  }
  if (options.typecheck) {
    const problems = await typecheckScripts(scripts, sources);
    if (problems.length) throw problemsError(scenario, problems);
  }
  return sources;
}

function problemsError(scenario: Scenario, problems: readonly ScriptProblem[]): UsageError {
  const field = (script: string) => {
    const part = scenario.parts.find((p) => p.script === script);
    return part?.name ? `scenarios.${part.name}.script` : "script";
  };
  return new UsageError(problems.map((p) => `${field(p.script)}: ${p.message}`).join("\n"));
}
