import { parse as parseYaml, YAMLParseError } from "yaml";
import { parseWith, ValidationError } from "../validation.js";
import { type Scenario, scenarioSchema } from "./scenario.js";

export type ScenarioFormat = "json" | "yaml";

/**
 * Validates a scenario object; throws ValidationError naming every bad field. Top-level keys that
 * start with `x-` are the writer's own (YAML anchors to reuse: `x-auth: &auth {...}`) and ignored.
 */
export function parseScenario(input: unknown): Scenario {
  return parseWith(scenarioSchema, withoutExtensions(input), "scenario");
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
