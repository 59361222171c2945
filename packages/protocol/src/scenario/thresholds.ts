import { formatMs } from "../format.js";
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
export type ThresholdOperator = "<" | "<=" | ">" | ">=" | "==";

export interface ThresholdRule {
  /** The key as written, e.g. "p95[login]". */
  key: string;
  metric: ThresholdMetric;
  /** Request name the rule applies to; undefined for the whole run. */
  request?: string;
  /** A streamed request's timing the rule judges (`chat.stream.firstEventMs.p95`) instead of its latency. */
  stream?: StreamTiming;
  operator: ThresholdOperator;
  /** Milliseconds for latency, a fraction (0..1) for errorRate and checks, a plain number otherwise. */
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
  let metric: ThresholdMetric;
  try {
    metric = parseThreshold(result.key, result.expression).metric;
  } catch {
    return String(value);
  }
  if ((RATIO_METRICS as readonly string[]).includes(metric)) return `${(value * 100).toFixed(2)} %`;
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) return formatMs(value);
  if (metric === "rps") return `${value.toLocaleString("en-US", { maximumFractionDigits: 1 })} req/s`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}
