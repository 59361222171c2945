import type { Database } from "@volley/db";
import { parseScenario, type Scenario } from "@volley/protocol";
import { withKeptFiles } from "./kept-files.js";
import { type RunInputs, resolveRunInputs } from "./run-data.js";
import { bundleRunScripts } from "./run-scripts.js";

/** What a client sends besides the scenario (`POST /api/runs`, `volley run`). */
export interface RunExtras {
  files?: Record<string, string>;
  env?: Record<string, string>;
  attachments?: Record<string, string>;
  /** A run whose kept files complete those sent ("Run again"). */
  filesFrom?: string;
  /** Sources of the scenario's scripts, by path relative to the scenario file. */
  scripts?: Record<string, string>;
  /** Wait behind the active and queued runs instead of a 409. */
  queue?: boolean;
  /** Type-check TypeScript scripts first. @defaultValue true */
  typecheck?: boolean;
  /** Who asked for the run (kept as the run's `startedBy`). */
  startedBy?: string;
}

/**
 * Everything a run needs before it is written: the validated scenario, its feeders, files and
 * env values, and its scripts bundled. Throws a ValidationError (400) naming each problem;
 * nothing is written.
 */
export async function prepareRun(
  db: Database,
  input: unknown,
  extras: RunExtras,
  masterEnv: Record<string, string> = {},
): Promise<{ scenario: Scenario; inputs: RunInputs }> {
  const scenario = parseScenario(input);
  const sent = await withKeptFiles(
    db,
    { files: extras.files ?? {}, attachments: extras.attachments ?? {} },
    extras.filesFrom,
  );
  const resolved = await resolveRunInputs(
    scenario,
    sent.files,
    extras.env ?? {},
    sent.attachments,
    masterEnv,
  );
  const scripts = await bundleRunScripts(
    scenario,
    { ...sent.scripts, ...extras.scripts },
    { typecheck: extras.typecheck ?? true },
  );
  return {
    scenario,
    inputs: {
      ...resolved,
      files: [...resolved.files, ...scripts.kept],
      scripts: scripts.bundles,
      hooks: scripts.hooks,
    },
  };
}
