import { z } from "zod";
import { durationSchema } from "../duration.js";
import { k6ThresholdHint } from "./k6-thresholds.js";
import type { RequestConfig } from "./request.js";
import { checkNames, requestName, requestStatsNames } from "./scenario-names.js";
import { nameMeans, unscopedName } from "./scoped-names.js";
import { parseThreshold, ThresholdSyntaxError } from "./thresholds.js";

/** A threshold that can stop the run: `{ threshold: "<200ms", abortOnFail: true, delayAbortEval: "10s" }`. */
const thresholdObjectSchema = z.strictObject({
  threshold: z.string(),
  /** Stop the run (status aborted, reason threshold) as soon as the merged data breaks it. */
  abortOnFail: z.boolean().default(false),
  /** Not judged for aborting before this much of the run has passed. @defaultValue "0s" */
  delayAbortEval: durationSchema.default(0),
});

const thresholdValueSchema = z.union([z.string(), thresholdObjectSchema]);

/** `thresholds:` as written: each expression parsed; the ones that can stop the run listed apart. */
export const thresholdsSchema = z
  .record(z.string(), z.unknown())
  .transform((written, ctx) => {
    const thresholds: Record<string, z.output<typeof thresholdValueSchema>> = {};
    for (const [key, value] of Object.entries(written)) {
      const issue = (message: string) => ctx.addIssue({ code: "custom", path: [key], message });
      const parsed = thresholdValueSchema.safeParse(value);
      if (!parsed.success) {
        issue(
          k6ThresholdHint(key, value) ??
            (typeof value === "object" && value !== null && !Array.isArray(value)
              ? (parsed.error.issues[0]?.message ?? "is not a threshold")
              : 'write an expression ("<200ms") or { threshold, abortOnFail, delayAbortEval }'),
        );
        continue;
      }
      try {
        parseThreshold(key, typeof parsed.data === "string" ? parsed.data : parsed.data.threshold);
        thresholds[key] = parsed.data;
      } catch (error) {
        if (!(error instanceof ThresholdSyntaxError)) throw error;
        const hint = k6ThresholdHint(key, value);
        issue(hint ?? error.message);
      }
    }
    return thresholds;
  })
  .transform((thresholds) => ({
    rules: Object.fromEntries(
      Object.entries(thresholds).map(([key, value]) => [
        key,
        typeof value === "string" ? value : value.threshold,
      ]),
    ),
    aborts: Object.entries(thresholds).flatMap(([key, value]) =>
      typeof value === "object" && value.abortOnFail ? [{ key, delayMs: value.delayAbortEval }] : [],
    ),
  }));

/** Thresholds naming what the scenario does not have (a script's names are judged as it runs). */
export function thresholdProblems(scenario: {
  thresholds: Record<string, string>;
  requests: ReadonlyArray<RequestConfig>;
  groups: readonly string[];
  parts: ReadonlyArray<{ name: string | null; script: string | null }>;
}): Array<{ path: string[]; message: string }> {
  const problems: Array<{ path: string[]; message: string }> = [];
  const scenarios = scenario.parts.map((part) => part.name);
  const keys = [...new Set([...scenario.requests.flatMap(requestStatsNames), ...scenario.groups])];
  // The scoped names a written one means: its own, or each scenario's of that name.
  const meant = (written: string) => keys.filter((key) => nameMeans(written, unscopedName(key, scenarios)));
  // A script names its requests, groups and checks as it runs: their thresholds are judged then.
  const scripted = scenario.parts.some((part) => part.script !== null);
  for (const [key, expression] of Object.entries(scenario.thresholds)) {
    let rule: ReturnType<typeof parseThreshold>;
    try {
      rule = parseThreshold(key, expression);
    } catch {
      continue; // reported by the field check
    }
    if (rule.custom !== undefined) {
      if (!scripted) {
        problems.push({
          path: ["thresholds", key],
          message: `metrics.${rule.custom} is a custom metric, and only a script records those (no part of this scenario has one)`,
        });
      }
      continue;
    }
    if (scripted && (rule.metric === "checks" || rule.request !== undefined)) continue;
    if (rule.metric === "checks") {
      const problem = checkThresholdProblem(scenario, rule.request);
      if (problem) problems.push({ path: ["thresholds", key], message: problem });
      continue;
    }
    if (rule.request === undefined) continue;
    const named = meant(rule.request);
    if (named.length === 0) {
      problems.push({ path: ["thresholds", key], message: `no request or group is named "${rule.request}"` });
    } else if (named.length > 1) {
      problems.push({
        path: ["thresholds", key],
        message: `"${rule.request}" is a name of several scenarios: write one of ${named.map((n) => `"${n}"`).join(", ")}`,
      });
    } else if (
      rule.stream !== undefined &&
      !scenario.requests.some((r) => r.stream !== undefined && requestName(r) === named[0])
    ) {
      problems.push({
        path: ["thresholds", key],
        message: `"${rule.request}" is not streamed: give it stream: { kind: sse } (or lines) to judge its ${rule.stream}`,
      });
    }
  }
  return problems;
}

/** Why a `checks` threshold cannot be judged on this scenario, or null when it can. */
function checkThresholdProblem(
  scenario: { requests: ReadonlyArray<RequestConfig>; parts: ReadonlyArray<{ name: string | null }> },
  name: string | undefined,
): string | null {
  const checks = checkNames(scenario);
  if (checks.length === 0) return "no request has expect: a checks threshold needs at least one check";
  const scenarios = scenario.parts.map((part) => part.name);
  if (name !== undefined && !checks.some((check) => nameMeans(name, unscopedName(check, scenarios)))) {
    return `no check is named "${name}" (checks are the requests with expect: ${checks.join(", ")})`;
  }
  return null;
}
