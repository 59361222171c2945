import { parse as parseYaml, YAMLParseError } from "yaml";
import type { z } from "zod";
import { formatIssues, ValidationError, type ValidationIssue } from "../validation.js";
import { type Scenario, scenarioSchema } from "./scenario.js";

export type ScenarioFormat = "json" | "yaml";

/**
 * Validates a scenario object; throws ValidationError naming every bad field. Top-level keys that
 * start with `x-` are the writer's own (YAML anchors to reuse: `x-auth: &auth {...}`) and ignored.
 */
export function parseScenario(input: unknown): Scenario {
  const written = withoutExtensions(input);
  const result = scenarioSchema.safeParse(written);
  if (result.success) return result.data;
  const issues = formatIssues(result.error, scenarioSchema);
  // Unknown fields are the one problem that leaves the rest checkable: read again without them,
  // the scenario's other problems (templates, thresholds, names across fields) come in the same
  // answer instead of the next round.
  const unknown = result.error.issues.flatMap(unknownKeys);
  if (unknown.length === result.error.issues.length) {
    const again = scenarioSchema.safeParse(withoutKeys(written, unknown));
    if (!again.success)
      issues.push(...formatIssues(again.error, scenarioSchema).filter((i) => !has(issues, i)));
  }
  throw new ValidationError("scenario", issues);
}

/** The unknown keys an issue names (zod's own, or a step's: see steps.ts), with where; none for others. */
function unknownKeys(issue: z.core.$ZodIssue): Array<{ path: PropertyKey[]; keys: string[] }> {
  if (issue.code === "unrecognized_keys") return [{ path: issue.path, keys: issue.keys }];
  const keys =
    issue.code === "custom"
      ? (issue.params as { unknownKeys?: string[] } | undefined)?.unknownKeys
      : undefined;
  return keys ? [{ path: issue.path, keys }] : [];
}

function has(issues: readonly ValidationIssue[], issue: ValidationIssue): boolean {
  return issues.some((i) => i.path === issue.path && i.message === issue.message);
}

/** A copy of `input` without the keys the issues name as unknown. */
function withoutKeys(
  input: unknown,
  issues: ReadonlyArray<{ path: PropertyKey[]; keys: string[] }>,
): unknown {
  const copy = structuredClone(input);
  for (const issue of issues) {
    let at: unknown = copy;
    for (const segment of issue.path) at = (at as Record<PropertyKey, unknown> | undefined)?.[segment];
    if (at !== null && typeof at === "object")
      for (const key of issue.keys) delete (at as Record<string, unknown>)[key];
  }
  return copy;
}

function withoutExtensions(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([key]) => !key.startsWith("x-")));
}

/** Reads scenario text (JSON or YAML; JSON is YAML too) into a plain object, without validating it. */
export function readScenarioText(text: string, format: ScenarioFormat = "yaml"): unknown {
  try {
    // `merge`: `<<: *anchor` merges a mapping an `x-` key holds into another (YAML 1.1 merge keys).
    return format === "json" ? JSON.parse(text) : parseYaml(text, { prettyErrors: true, merge: true });
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` at line ${error.linePos[0].line}` : "";
    throw new ValidationError("scenario", [
      { path: "(root)", message: `not valid ${format.toUpperCase()}${where}: ${(error as Error).message}` },
    ]);
  }
}

export function formatFromFileName(fileName: string): ScenarioFormat {
  return fileName.toLowerCase().endsWith(".json") ? "json" : "yaml";
}
