import type { z } from "zod";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../json-depth.js";
import { formatIssueList, type ValidationIssue } from "../validation.js";
import { isCrossField } from "./cross-field.js";
import { scenarioSchema } from "./scenario.js";

// A scenario with a bad field is refused before its cross-field checks (templates, thresholds,
// names across fields) run: zod stops at the first layer that fails. So that a writer gets every
// problem in one answer instead of one round per layer, the scenario is read again without its
// unknown fields and with a stand-in for each bad value; what that reading finds elsewhere is
// added to the answer.

/** Stand-ins tried in order for a bad value: none (an optional field), then one of each kind a required field takes. */
const REMOVE = Symbol("remove");
const STAND_INS: readonly unknown[] = [REMOVE, 1, "1s", "/", "http://127.0.0.1:1", "x", [{ path: "/" }]];
/** More bad values than this, and the answer is long enough: no second reading. */
const MAX_STAND_INS = 10;
/**
 * Readings tried at most in finding stand-ins: a scenario from outside is read this many more
 * times at worst (a bounded cost per request), not once per stand-in per bad value.
 */
const MAX_READINGS = 16;

type Path = ReadonlyArray<PropertyKey>;

/** The problems a second reading finds beyond those already named (none when it cannot be read past them). */
export function problemsBeyond(written: unknown, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  // A document nested past what a scenario may hold is refused for that alone (and not copied).
  if (jsonDepthExceeds(written, MAX_JSON_DEPTH + 16)) return [];
  // Problems found across fields mean the scenario was read through: nothing lies beyond.
  if (issues.some(isCrossField)) return [];
  const unknown = issues.flatMap(unknownKeys);
  const bad = issues.filter((issue) => unknownKeys(issue).length === 0).map((issue) => issue.path);
  if (bad.length > MAX_STAND_INS || bad.some(isReferredTo)) return [];
  const copy = withoutKeys(written, unknown);
  const budget = { readings: MAX_READINGS };
  for (const path of bad) if (!standIn(copy, path, budget)) return [];
  const again = scenarioSchema.safeParse(copy);
  if (again.success) return [];
  // A field may complain of its neighbour's stand-in (no `path` once `grpc` is gone): of the
  // object around a bad value, only what was found across fields is kept.
  const around = bad.map((path) => (path.length > 1 ? path.slice(0, -1) : path));
  const beyond = again.error.issues.filter((issue) =>
    isCrossField(issue)
      ? !bad.some((path) => related(issue.path, path))
      : !around.some((path) => related(issue.path, path)),
  );
  return formatIssueList(beyond, scenarioSchema);
}

/**
 * A value others name (a feeder, an env name, a capture, a request's or group's name, a whole
 * scenario): a stand-in would make what refers to it look broken, so it is not read past.
 */
function isReferredTo(path: Path): boolean {
  const last = path[path.length - 1];
  return (
    path.length === 0 ||
    path.some((segment) => segment === "data" || segment === "env" || segment === "capture") ||
    last === "name" ||
    last === "group" ||
    last === "flows" ||
    (path[0] === "scenarios" && path.length <= 2)
  );
}

/** Puts the first stand-in that the field accepts in place of its bad value; false when none does (or the readings ran out). */
function standIn(copy: unknown, path: Path, budget: { readings: number }): boolean {
  for (const value of STAND_INS) {
    if (value === REMOVE && typeof path[path.length - 1] === "number") continue;
    if (budget.readings-- <= 0 || !setAt(copy, path, value)) return false;
    const result = scenarioSchema.safeParse(copy);
    // A field taken away must leave its object whole (no "path or url" missing in its stead);
    // a value put in must only satisfy its own field.
    const near = value === REMOVE && path.length > 1 ? path.slice(0, -1) : path;
    if (result.success || !result.error.issues.some((issue) => related(issue.path, near))) return true;
  }
  return false;
}

function setAt(root: unknown, path: Path, value: unknown): boolean {
  const at = objectAt(root, path.slice(0, -1));
  if (at === null) return false;
  const key = path[path.length - 1];
  if (value === REMOVE) delete at[key];
  else at[key] = structuredClone(value);
  return true;
}

/** The object at `path` below `root`, or null when there is none. */
function objectAt(root: unknown, path: Path): Record<PropertyKey, unknown> | null {
  let at: unknown = root;
  for (const segment of path) at = (at as Record<PropertyKey, unknown> | undefined)?.[segment];
  return at !== null && typeof at === "object" ? (at as Record<PropertyKey, unknown>) : null;
}

/** One path within the other (a field and its parts, or its parent's own rule). */
function related(a: Path, b: Path): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The unknown keys an issue names (zod's own, or a step's: see steps.ts), with where; none for others. */
function unknownKeys(issue: z.core.$ZodIssue): Array<{ path: Path; keys: string[] }> {
  if (issue.code === "unrecognized_keys") return [{ path: issue.path, keys: issue.keys }];
  const keys =
    issue.code === "custom"
      ? (issue.params as { unknownKeys?: string[] } | undefined)?.unknownKeys
      : undefined;
  return keys ? [{ path: issue.path, keys }] : [];
}

/** A copy of `input` without the keys the issues name as unknown. */
function withoutKeys(input: unknown, issues: ReadonlyArray<{ path: Path; keys: string[] }>): unknown {
  const copy = structuredClone(input);
  for (const issue of issues) {
    const at = objectAt(copy, issue.path);
    if (at !== null) for (const key of issue.keys) delete at[key];
  }
  return copy;
}
