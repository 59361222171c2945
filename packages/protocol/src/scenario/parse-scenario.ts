import { parse as parseYaml, YAMLParseError } from "yaml";
import { parseWith, ValidationError } from "../validation.js";
import { type Scenario, scenarioSchema } from "./scenario.js";

export type ScenarioFormat = "json" | "yaml";

/** Validates a scenario object; throws ValidationError naming every bad field. */
export function parseScenario(input: unknown): Scenario {
  return parseWith(scenarioSchema, input, "scenario");
}

/** Reads scenario text (JSON or YAML; JSON is YAML too) into a plain object, without validating it. */
export function readScenarioText(text: string, format: ScenarioFormat = "yaml"): unknown {
  try {
    return format === "json" ? JSON.parse(text) : parseYaml(text, { prettyErrors: true });
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
