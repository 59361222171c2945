import type { z } from "zod";
import { fieldsAt, unknownFieldsMessage } from "./did-you-mean.js";
import { VolleyError } from "./errors.js";

/** One problem in an input, named by its path (`load.vus`, `requests[1].path`). */
export interface ValidationIssue {
  path: string;
  message: string;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || "(root)";
}

/** Each issue named by its path; `schema` (the one that found them) suggests a mistyped field. */
export function formatIssues(error: z.ZodError, schema?: z.ZodType): ValidationIssue[] {
  return formatIssueList(error.issues, schema);
}

/** The same for issues picked out of an error. */
export function formatIssueList(issues: readonly z.core.$ZodIssue[], schema?: z.ZodType): ValidationIssue[] {
  return issues.map((issue) => ({
    path: formatPath(issue.path),
    message: describeIssue(issue, schema),
  }));
}

function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  if (issue.code === "unrecognized_keys") {
    return unknownFieldsMessage(issue.keys, schema ? fieldsAt(schema, issue.path) : []);
  }
  if (issue.code === "invalid_type" && issue.message.includes("received undefined")) return "is required";
  // A record's key broke its rule: say the rule ("a scenario name must be..."), not "Invalid key".
  if (issue.code === "invalid_key")
    return issue.issues.map((inner) => describeIssue(inner, undefined)).join("; ");
  return issue.message;
}

/** Thrown at an edge when input does not match its schema; maps to HTTP 400 and CLI exit 2. */
export class ValidationError extends VolleyError {
  constructor(
    readonly what: string,
    readonly issues: ValidationIssue[],
  ) {
    super(
      "VOL_ERR_VALIDATION",
      `invalid ${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
  }
}

/** Parses `input` with `schema`, throwing a ValidationError that names every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(what, formatIssues(result.error, schema));
  return result.data;
}
