import { formatIssues, type Scenario, scenarioSchema, type ValidationIssue } from "@volley/protocol";

/** Validates a draft with the schema the master uses; issues keyed by field path. */
export function validateDraft(draft: unknown): {
  issues: ValidationIssue[];
  byPath: Map<string, string>;
  /** The parsed scenario, when it is valid. */
  scenario: Scenario | null;
} {
  const result = scenarioSchema.safeParse(draft);
  const issues = result.success ? [] : formatIssues(result.error);
  const byPath = new Map<string, string>();
  for (const issue of issues) if (!byPath.has(issue.path)) byPath.set(issue.path, issue.message);
  return { issues, byPath, scenario: result.success ? result.data : null };
}
