import { parse as parseYaml, YAMLParseError } from "yaml";
import { formatIssues, ValidationError, type ValidationIssue } from "../validation.js";
import { problemsBeyond } from "./problems-beyond.js";
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
  for (const issue of problemsBeyond(written, result.error.issues))
    if (!has(issues, issue)) issues.push(issue);
  throw new ValidationError("scenario", issues);
}

function has(issues: readonly ValidationIssue[], issue: ValidationIssue): boolean {
  return issues.some((i) => i.path === issue.path && i.message === issue.message);
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
