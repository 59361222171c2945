import { z } from "zod";

/** Most labels one worker carries. */
export const MAX_WORKER_LABELS = 20;

const LABEL_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
const labelValueSchema = z.string().regex(/^[A-Za-z0-9._-]{0,63}$/, {
  error: "a label value is up to 63 letters, digits and . _ -",
});

/** A worker's labels (`volley worker --label pool=eu`), and a scenario's selector of them. */
export const workerLabelsSchema = z
  .record(z.string().max(100), labelValueSchema)
  .superRefine((labels, ctx) => {
    // Each bad name is named (a record's own key check only says "Invalid key").
    for (const key of Object.keys(labels)) {
      if (!LABEL_KEY_RE.test(key)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `"${key}" is not a label name: 1 to 63 letters, digits and . _ / - (starting with a letter or digit)`,
        });
      }
    }
    if (Object.keys(labels).length > MAX_WORKER_LABELS) {
      ctx.addIssue({ code: "custom", message: `at most ${MAX_WORKER_LABELS} labels` });
    }
  });
export type WorkerLabels = z.infer<typeof workerLabelsSchema>;

/**
 * A scenario's `workers:`: the workers whose labels include every pair of `selector`, and how many
 * of them (`count`; default: every matching free worker).
 */
export const workerSelectionSchema = z.strictObject({
  selector: workerLabelsSchema.default({}),
  count: z.int().min(1).max(10_000).optional(),
});
export type WorkerSelection = z.infer<typeof workerSelectionSchema>;

/** "k=v" as a flag or an environment list gives it: the pair, or a message saying what is wrong. */
export function parseLabel(text: string): [string, string] | string {
  const at = text.indexOf("=");
  if (at <= 0) return `"${text}" is not a label: write NAME=VALUE, such as pool=eu`;
  const pair: [string, string] = [text.slice(0, at).trim(), text.slice(at + 1).trim()];
  const checked = workerLabelsSchema.safeParse({ [pair[0]]: pair[1] });
  return checked.success ? pair : `"${text}": ${checked.error.issues[0].message}`;
}

/** Whether `labels` carry every pair of `selector` (an empty selector matches every worker). */
export function labelsMatch(labels: WorkerLabels, selector: WorkerLabels): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** A selector as people write it: "pool=eu, tier=big" ("any worker" when empty). */
export function selectorText(selector: WorkerLabels): string {
  const pairs = Object.entries(selector).map(([key, value]) => `${key}=${value}`);
  return pairs.length ? pairs.join(", ") : "any worker";
}
