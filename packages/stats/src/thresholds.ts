import {
  compareThreshold,
  nameMeans,
  parseThreshold,
  type RequestSummary,
  type RunSummary,
  type StreamTiming,
  type ThresholdResult,
  type TotalsSummary,
  unscopedName,
} from "@volley/protocol";

/** Evaluates a scenario's thresholds against a run summary (merged histograms, all workers). */
export function evaluateThresholds(
  thresholds: Record<string, string>,
  summary: RunSummary,
): ThresholdResult[] {
  return Object.entries(thresholds).map(([key, expression]) => {
    const rule = parseThreshold(key, expression);
    if (rule.custom !== undefined) {
      const actual = customMeasure(summary, rule.custom, rule.metric);
      return {
        key,
        expression,
        actual,
        pass: actual !== null && compareThreshold(actual, rule.operator, rule.value),
      };
    }
    if (rule.metric === "checks") {
      const actual = checkRate(summary, rule.request);
      return {
        key,
        expression,
        actual,
        pass: actual !== null && compareThreshold(actual, rule.operator, rule.value),
      };
    }
    const scope = rule.request === undefined ? summary.total : namedScope(summary, rule.request);
    const actual = rule.stream
      ? streamTiming(scope, rule.stream, rule.metric)
      : scope
        ? measure(scope, rule.metric)
        : null;
    return {
      key,
      expression,
      actual,
      pass: actual !== null && compareThreshold(actual, rule.operator, rule.value),
    };
  });
}

/**
 * A custom metric's figure; null when the run did not record the metric, or its type has no such
 * figure (a counter's p95), so the threshold fails as "nothing measured".
 */
function customMeasure(summary: RunSummary, name: string, stat: string): number | null {
  const metric = summary.metrics?.[name];
  if (!metric) return null;
  const value = (metric as Record<string, unknown>)[stat];
  return typeof value === "number" && stat !== "type" ? value : null;
}

function measure(scope: TotalsSummary, metric: string): number | null {
  switch (metric) {
    case "errorRate":
      return scope.requests ? scope.failures / scope.requests : 0;
    case "rps":
    case "requests":
    case "failures":
    case "dropped":
      return scope[metric];
    default:
      return scope.requests ? scope.latencyMs[metric as keyof TotalsSummary["latencyMs"]] : null;
  }
}

/**
 * The one request or group a written name means (see nameMeans); none when it means none or several
 * (a name several scenarios use, written without one: validation asks for "SCENARIO · NAME").
 */
function namedScope(summary: RunSummary, written: string): TotalsSummary | undefined {
  const named = [...summary.requests, ...(summary.groups ?? [])].filter((r) => nameMeans(written, r));
  return named.length === 1 ? named[0] : undefined;
}

/** Passes among all checks, or among those one name means (each scenario's of it); null when none was evaluated. */
function checkRate(summary: RunSummary, name: string | undefined): number | null {
  const scenarios = (summary.scenarios ?? []).map((s) => s.name);
  const checks = (summary.checks ?? []).filter(
    (c) => name === undefined || nameMeans(name, unscopedName(c.name, scenarios)),
  );
  const passes = checks.reduce((n, c) => n + c.passes, 0);
  const evaluated = passes + checks.reduce((n, c) => n + c.fails, 0);
  return evaluated ? passes / evaluated : null;
}

/** A streamed request's timing percentile; null when it measured no stream (or no such event). */
function streamTiming(scope: TotalsSummary | undefined, timing: StreamTiming, metric: string): number | null {
  const stream = scope && "stream" in scope ? (scope as RequestSummary).stream : undefined;
  if (!stream) return null;
  // Nothing of that timing was measured (no event at all, or never two in one stream).
  if (stream[timing].max === 0) return null;
  return stream[timing][metric as keyof TotalsSummary["latencyMs"]];
}
