import { dirname, resolve } from "node:path";
import type { Scenario } from "@volley/protocol";
import { collectScriptSources, ScriptBundleError } from "@volley/script/bundle";
import { UsageError } from "./cli-error.js";

/**
 * The sources of the scripts the scenario's parts name, with what they import (relative files,
 * and npm packages installed beside them), by path relative to the scenario file: the master
 * bundles them. A script that is missing or does not compile is a UsageError (exit 2) naming the
 * field, file, line and column.
 */
export async function scriptSources(
  scenario: Scenario,
  scenarioFile: string,
): Promise<Record<string, string>> {
  const scripts = [...new Set(scenario.parts.flatMap((part) => (part.script === null ? [] : [part.script])))];
  if (scripts.length === 0) return {};
  try {
    return await collectScriptSources(dirname(resolve(scenarioFile)), scripts);
  } catch (error) {
    if (!(error instanceof ScriptBundleError)) throw error;
    const field = (script: string) => {
      const part = scenario.parts.find((p) => p.script === script);
      return part?.name ? `scenarios.${part.name}.script` : "script";
    };
    throw new UsageError(error.problems.map((p) => `${field(p.script)}: ${p.message}`).join("\n"));
  }
}
