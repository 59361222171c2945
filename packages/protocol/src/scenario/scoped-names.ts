// In a run of `scenarios:`, what each scenario records is kept apart from the others' (as k6's
// `scenario` tag does): its requests, groups and checks are kept under "SCENARIO · NAME". The same
// name may then be used by several scenarios, each with its own exact statistics.

/** The longest name of one of `scenarios:` (a plain identifier). */
export const MAX_SCENARIO_NAME = 64;
/** The longest name of a request, group or check as written. */
export const MAX_OWN_NAME = 200;
/** The longest name statistics travel under: an own name scoped by its scenario's. */
export const MAX_STATS_NAME = MAX_SCENARIO_NAME + 3 + MAX_OWN_NAME;

/** Between a scenario's name and its request's (or group's, or check's) in a scoped name. */
export const SCOPE_SEPARATOR = " · ";

/** The name statistics are kept under: scoped by the scenario (of `scenarios:`) when there is one. */
export function scopedName(scenario: string | null | undefined, name: string): string {
  return scenario ? `${scenario}${SCOPE_SEPARATOR}${name}` : name;
}

/**
 * A scoped name read back into its scenario and own name, given the run's scenario names; a name
 * of no scenario (a run without `scenarios:`) comes back as it is. A scenario's name is a plain
 * identifier (no separator in it), so at most one of them starts a name.
 */
export function unscopedName(
  key: string,
  scenarios: ReadonlyArray<string | null>,
): { name: string; scenario?: string } {
  const owner = scenarios.find((s) => s !== null && key.startsWith(`${s}${SCOPE_SEPARATOR}`));
  return owner ? { name: key.slice(owner.length + SCOPE_SEPARATOR.length), scenario: owner } : { name: key };
}

/**
 * Whether a name written by a person (a threshold's, say) means this request, group or check: its
 * scoped name, or its own name without the scenario ("login" for browse's "login").
 */
export function nameMeans(written: string, entry: { name: string; scenario?: string }): boolean {
  return entry.name === written || scopedName(entry.scenario, entry.name) === written;
}
