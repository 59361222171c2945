import { formatMs } from "../format.js";
import { metricNameProblem } from "../stats/custom-metrics.js";
import { STREAM_TIMINGS, type StreamTiming } from "./stream-names.js";
/**
 * Threshold expressions: `{ "p95": "<200ms", "errorRate": "<1%", "login.p99": "<=500ms" }`.
 * A key is a metric, for one request or group either as `name.metric` or `metric[name]`; a value
 * is a comparison.
 */
export const LATENCY_METRICS = ["min", "mean", "max", "p50", "p75", "p90", "p95", "p99", "p999"] as const;
export const COUNT_METRICS = ["requests", "failures", "dropped"] as const;
/** Ratios, written "<1%" or "<0.01": errors among requests, passes among checks. */
export const RATIO_METRICS = ["errorRate", "checks"] as const;
export const THRESHOLD_METRICS = [...LATENCY_METRICS, ...COUNT_METRICS, "rps", ...RATIO_METRICS] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];
/**
 * A custom metric's figures a threshold can judge (`metrics.NAME.STAT`), each of the types that
 * have it: a trend's count, min, mean, max and percentiles; a counter's count and ratePerSecond;
 * a rate's rate, passes and fails; a gauge's last, min and max.
 */
export const CUSTOM_METRIC_STATS = [
  "count",
  "ratePerSecond",
  "rate",
  "passes",
  "fails",
  "last",
  "min",
  "mean",
  "max",
  "p50",
  "p90",
  "p95",
  "p99",
  "p999",
] as const;
export type CustomMetricStat = (typeof CUSTOM_METRIC_STATS)[number];
export type ThresholdOperator = "<" | "<=" | ">" | ">=" | "==";

export interface ThresholdRule {
  /** The key as written, e.g. "p95[login]". */
  key: string;
  /** What is judged: of the run or a request, or of the custom metric `custom`. */
  metric: ThresholdMetric | CustomMetricStat;
  /** The custom metric (`metrics.NAME.STAT`) the rule judges; absent for the run's own figures. */
  custom?: string;
  /** Request name the rule applies to; undefined for the whole run. */
  request?: string;
  /** A streamed request's timing the rule judges (`chat.stream.firstEventMs.p95`) instead of its latency. */
  stream?: StreamTiming;
  operator: ThresholdOperator;
  /**
   * Milliseconds for latency, a fraction (0..1) for errorRate, checks and a metric's rate, a
   * plain number otherwise (a custom metric's in its unit).
   */
  value: number;
  expression: string;
}

export class ThresholdSyntaxError extends Error {}

const KEY_RE = /^([A-Za-z0-9]+)(?:\[(.+)\])?$/;
const EXPRESSION_RE = /^(<=|>=|==|<|>)\s*(-?\d+(?:\.\d+)?)\s*(us|ms|s|%)?$/;
const LATENCY_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

/** `name.metric` as `metric[name]`, when the part after the last dot is a metric. */
function bracketForm(key: string): string {
  const dot = key.lastIndexOf(".");
  if (dot <= 0 || KEY_RE.test(key)) return key;
  const metric = key.slice(dot + 1);
  return (THRESHOLD_METRICS as readonly string[]).includes(metric) ? `${metric}[${key.slice(0, dot)}]` : key;
}

export function parseThreshold(key: string, expression: string): ThresholdRule {
  if (key.trim().startsWith(CUSTOM_PREFIX)) return parseCustomThreshold(key, expression);
  const keyMatch = KEY_RE.exec(bracketForm(key.trim()));
  const metric = keyMatch?.[1] as ThresholdMetric | undefined;
  if (!keyMatch || !metric || !(THRESHOLD_METRICS as readonly string[]).includes(metric)) {
    throw new ThresholdSyntaxError(
      `unknown metric "${key}": use one of ${THRESHOLD_METRICS.join(", ")}, or NAME.metric for one request or group`,
    );
  }
  const match = EXPRESSION_RE.exec(expression.trim());
  if (!match) {
    throw new ThresholdSyntaxError(`"${expression}" is not a comparison such as "<200ms", "<1%" or ">=100"`);
  }
  const [, operator, number, unit] = match;
  let value = Number(number);
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) {
    if (unit === "%") throw new ThresholdSyntaxError(`${metric} is a latency: use us, ms or s, not %`);
    value *= LATENCY_UNITS[unit ?? "ms"];
  } else if ((RATIO_METRICS as readonly string[]).includes(metric)) {
    if (unit && unit !== "%")
      throw new ThresholdSyntaxError(
        `${metric} is a ratio: write it as "${metric === "checks" ? ">99%" : "<1%"}" or "${metric === "checks" ? ">0.99" : "<0.01"}"`,
      );
    if (unit === "%") value /= 100;
  } else if (unit) {
    throw new ThresholdSyntaxError(`${metric} is a plain number: drop the unit "${unit}"`);
  }
  const streamed = STREAM_KEY_RE.exec(keyMatch[2] ?? "");
  if (streamed) {
    if (!(LATENCY_METRICS as readonly string[]).includes(metric)) {
      throw new ThresholdSyntaxError(`${streamed[2]} is a time: judge it with ${LATENCY_METRICS.join(", ")}`);
    }
    const stream = streamed[2] as StreamTiming;
    return {
      key,
      metric,
      request: streamed[1],
      stream,
      operator: operator as ThresholdOperator,
      value,
      expression,
    };
  }
  return { key, metric, request: keyMatch[2], operator: operator as ThresholdOperator, value, expression };
}

const CUSTOM_PREFIX = "metrics.";
const CUSTOM_KEY_RE = /^metrics\.([^.]+)\.([A-Za-z0-9]+)$/;

/** `metrics.NAME.STAT`: a script's own metric, judged in its unit (a rate as a ratio). */
function parseCustomThreshold(key: string, expression: string): ThresholdRule {
  const keyMatch = CUSTOM_KEY_RE.exec(key.trim());
  const [, name, stat] = keyMatch ?? [];
  if (!keyMatch || !(CUSTOM_METRIC_STATS as readonly string[]).includes(stat)) {
    throw new ThresholdSyntaxError(
      `"${key}" is not a custom metric's threshold: write metrics.NAME.STAT, STAT one of ${CUSTOM_METRIC_STATS.join(", ")}`,
    );
  }
  const problem = metricNameProblem(name);
  if (problem) throw new ThresholdSyntaxError(`"${name}" ${problem}`);
  const match = EXPRESSION_RE.exec(expression.trim());
  if (!match) {
    throw new ThresholdSyntaxError(`"${expression}" is not a comparison such as "<200", ">0.99" or ">=100"`);
  }
  const [, operator, number, unit] = match;
  let value = Number(number);
  if (unit === "%") {
    if (stat !== "rate") throw new ThresholdSyntaxError(`metrics.${name}.${stat} is not a ratio: drop the %`);
    value /= 100;
  } else if (unit) {
    // A time unit reads as milliseconds: the unit of a trend made with { unit: "ms" }.
    if (!(LATENCY_METRICS as readonly string[]).includes(stat) && stat !== "last") {
      throw new ThresholdSyntaxError(`metrics.${name}.${stat} is a plain number: drop the unit "${unit}"`);
    }
    value *= LATENCY_UNITS[unit];
  }
  return {
    key,
    metric: stat as CustomMetricStat,
    custom: name,
    operator: operator as ThresholdOperator,
    value,
    expression,
  };
}

/** `NAME.stream.TIMING`: a streamed request's timing. */
const STREAM_KEY_RE = new RegExp(`^(.+)\\.stream\\.(${STREAM_TIMINGS.join("|")})$`);

export function compareThreshold(actual: number, operator: ThresholdOperator, expected: number): boolean {
  switch (operator) {
    case "<":
      return actual < expected;
    case "<=":
      return actual <= expected;
    case ">":
      return actual > expected;
    case ">=":
      return actual >= expected;
    case "==":
      return actual === expected;
  }
}

/**
 * A threshold's measured value in the unit of its rule, as every report shows it: "51.8 ms" for
 * a latency, "3.35 %" for errorRate or checks, "1,048.4 req/s" for rps, a count otherwise.
 */
export function formatThresholdActual(result: {
  key: string;
  expression: string;
  actual: number | null;
}): string {
  if (result.actual === null) return "nothing measured";
  const value = result.actual;
  let metric: ThresholdRule["metric"];
  let custom: string | undefined;
  try {
    ({ metric, custom } = parseThreshold(result.key, result.expression));
  } catch {
    return String(value);
  }
  if (custom !== undefined) {
    return metric === "rate"
      ? `${(value * 100).toFixed(2)} %`
      : value.toLocaleString("en-US", { maximumFractionDigits: 3 });
  }
  if ((RATIO_METRICS as readonly string[]).includes(metric)) return `${(value * 100).toFixed(2)} %`;
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) return formatMs(value);
  if (metric === "rps") return `${value.toLocaleString("en-US", { maximumFractionDigits: 1 })} req/s`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}
