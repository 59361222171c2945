import {
  compareThreshold,
  parseThreshold,
  type RequestSummary,
  type RunSummary,
  type StreamTiming,
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
    if (rule.metric === "checks") {
      const actual = checkRate(summary, rule.request);
      return {
        key,
        expression,
        actual,
        pass: actual !== null && compareThreshold(actual, rule.operator, rule.value),
      };
    }
    const scope =
      rule.request === undefined
        ? summary.total
        : (summary.requests.find((r) => r.name === rule.request) ??
          summary.groups?.find((g) => g.name === rule.request));
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

/** Passes among all checks, or among one check's; null when none was evaluated. */
function checkRate(summary: RunSummary, name: string | undefined): number | null {
  const checks = (summary.checks ?? []).filter((c) => name === undefined || c.name === name);
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
