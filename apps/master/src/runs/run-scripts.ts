import type { RunFileContent } from "@volley/db";
import { type Scenario, ValidationError } from "@volley/protocol";
import { bundleScripts, ScriptBundleError } from "@volley/script/bundle";

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
