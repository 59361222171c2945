import type { z } from "zod";

// Problems found across fields (a template naming a feeder, a threshold naming a request) are
// marked, so that a second reading past bad values (problems-beyond.ts) can tell them from a
// field's own complaints about the stand-in it was given.

type RefinementContext = z.core.$RefinementCtx<unknown>;
type Issue = Exclude<Parameters<RefinementContext["addIssue"]>[0], string>;

/** A context whose issues are marked as found across fields. */
export function crossFieldContext(ctx: RefinementContext): { addIssue(issue: Issue): void } {
  return {
    addIssue: (issue) =>
      ctx.addIssue({ ...issue, params: { ...(issue.params as object | undefined), crossField: true } }),
  };
}

/** Whether an issue was found across fields. */
export function isCrossField(issue: z.core.$ZodIssue): boolean {
  return (
    issue.code === "custom" && (issue.params as { crossField?: boolean } | undefined)?.crossField === true
  );
}
