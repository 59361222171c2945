import { parseScenario } from "../scenario/parse-scenario.js";
import { ValidationError } from "../validation.js";

/** What validation says of a scenario: every issue with its path, none when it is valid. For tests. */
export function issuesOf(input: unknown): Array<{ path: string; message: string }> {
  try {
    parseScenario(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  return [];
}
