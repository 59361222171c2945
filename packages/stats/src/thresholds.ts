import {
  compareThreshold,
  parseThreshold,
  type RunSummary,
  type ThresholdResult,
  type TotalsSummary,
} from "@volley/protocol";

/** Evaluates a scenario's thresholds against a run summary (merged histograms, all workers). */
export function evaluateThresholds(
  thresholds: Record<string, string>,
  summary: RunSummary,
): ThresholdResult[] {
  return Object.entries(thresholds).map(([key, expression]) => {
    const rule = parseThreshold(key, expression);
    const scope =
      rule.request === undefined
        ? summary.total
        : (summary.requests.find((r) => r.name === rule.request) ??
          summary.groups?.find((g) => g.name === rule.request));
    const actual = scope ? measure(scope, rule.metric) : null;
    return {
      key,
      expression,
      actual,
      pass: actual !== null && compareThreshold(actual, rule.operator, rule.value),
    };
  });
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
