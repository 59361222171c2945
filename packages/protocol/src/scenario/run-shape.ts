import { EXECUTOR_CAPABILITIES } from "./executor-capabilities.js";
import { peakVus, peakVusField, plannedDurationMs, vuCeiling } from "./load.js";
import type { Scenario } from "./scenario.js";
import { forEachTemplate } from "./scenario-templates.js";
import { parseTemplate, templateDataFields } from "./template.js";

/** What a run as a whole looks like, over all its parts (one, or each of `scenarios:`). */

/** VUs at most at once: every part's peak (the parts run side by side). */
export function runPeakVus(scenario: Scenario): number {
  return scenario.parts.reduce((sum, part) => sum + peakVus(part.load), 0);
}

/** VUs at most after load changes: every part's ceiling (see vuCeiling). */
export function runVuCeiling(scenario: Scenario): number {
  return scenario.parts.reduce((sum, part) => sum + vuCeiling(part.load), 0);
}

/** The field a run's VU count comes from, for error messages. */
export function runPeakVusField(scenario: Scenario): string {
  return scenario.parts.length === 1 ? peakVusField(scenario.parts[0].load) : "scenarios";
}

/** The longest part's planned length. */
export function runPlannedMs(scenario: Scenario): number {
  return Math.max(...scenario.parts.map((part) => plannedDurationMs(part.load)));
}

/**
 * Iterations the run will do in all when every part is a fixed number of them
 * (`per-vu-iterations`, `shared-iterations`); null when a part runs for a time instead. Its
 * planned length is then only an upper bound (`maxDuration`), and progress is counted in iterations.
 */
export function runPlannedIterations(scenario: Scenario): number | null {
  let total = 0;
  for (const { load } of scenario.parts) {
    if (load.executor === "per-vu-iterations") total += load.vus * load.iterations;
    else if (load.executor === "shared-iterations") total += load.iterations;
    else return null;
  }
  return total;
}

/** The longest graceful stop of any part. */
export function runGracefulStopMs(scenario: Scenario): number {
  return Math.max(...scenario.parts.map((part) => part.load.gracefulStop));
}

/** The executor, or how many scenarios run side by side. */
export function runExecutorLabel(scenario: Scenario): string {
  return scenario.parts.length === 1 ? scenario.parts[0].load.executor : `${scenario.parts.length} scenarios`;
}

/**
 * The feeders each part's iterations take a row from, by part index. One part takes every feeder
 * (a feeder nothing reads still bounds the iterations). With `scenarios:`, a part takes its own
 * feeders and the top-level ones its templates read: a unique row goes only to an iteration that
 * uses it.
 */
export function feedersByPart(scenario: Scenario): string[][] {
  const all = Object.keys(scenario.data);
  if (scenario.parts.length === 1) return [all];
  const read = new Map<string, Set<string>>();
  forEachTemplate(scenario, (text, path) => {
    if (path[0] !== "scenarios" || typeof path[1] !== "string") return;
    let parts: ReturnType<typeof parseTemplate>;
    try {
      parts = parseTemplate(text);
    } catch {
      return; // a scenario that parsed has none; nothing to take from one that did not
    }
    const feeders = read.get(path[1]) ?? new Set<string>();
    for (const { feeder } of templateDataFields(parts)) feeders.add(feeder);
    read.set(path[1], feeders);
  });
  return scenario.parts.map((part) =>
    all.filter((feeder) => {
      const owner = scenario.feederScenarios[feeder];
      return owner === undefined ? read.get(part.name ?? "")?.has(feeder) === true : owner === part.name;
    }),
  );
}

/** Where a feeder is declared, as a field path for messages: `data.users` or `scenarios.shop.data.users`. */
export function feederPath(scenario: Scenario, feeder: string): string {
  const owner = scenario.feederScenarios[feeder];
  return owner === undefined ? `data.${feeder}` : `scenarios.${owner}.data.${feeder}`;
}

/**
 * The names of `scenarios:` that have totals and series of their own: each, when there are several
 * (none for a run of one). Their statistics are theirs by scope (scoped-names.ts), scripted ones too.
 */
export function scenarioNames(scenario: Scenario): string[] {
  return scenario.parts.length < 2 ? [] : scenario.parts.map((part) => part.name as string);
}

/**
 * The VUs whose iterations take a feeder's rows, for dealing its unique rows: the VUs of the one
 * part that reads it, when VUs drive that part. Undefined when the rows go by arrival rate (their
 * share follows the weights) or several parts share the feeder.
 */
export function feederUnits(scenario: Scenario, feeder: string): number | undefined {
  const owner = scenario.feederScenarios[feeder];
  const parts = owner === undefined ? scenario.parts : scenario.parts.filter((part) => part.name === owner);
  if (parts.length !== 1 || !EXECUTOR_CAPABILITIES[parts[0].load.executor].vuDriven) return undefined;
  return peakVus(parts[0].load);
}
