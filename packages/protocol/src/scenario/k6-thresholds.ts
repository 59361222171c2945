import { METRIC_NAME_RE } from "../stats/custom-metrics.js";

// k6 writes thresholds as `http_req_duration: ["p(95)<500"]`; a k6 user's first try deserves
// the Volley spelling of what they wrote, not "Invalid input".

/** k6's built-in metrics Volley has a threshold for. */
const K6_KEY_RE = /^(http_req_duration|http_req_failed|http_reqs|checks)(?:\{\s*name\s*:\s*([^}]+?)\s*\})?$/;
const K6_EXPRESSION_RE =
  /^\s*(p\((\d+(?:\.\d+)?)\)|avg|med|min|max|rate|count|value)\s*(<=|>=|==|<|>)\s*([\d.]+)\s*$/;
/** A k6 custom metric's aggregate as a Volley custom metric's figure (`metrics.NAME.STAT`). */
const CUSTOM_STATS: Record<string, string> = {
  avg: "mean",
  med: "p50",
  min: "min",
  max: "max",
  rate: "rate",
  count: "count",
  value: "last",
};
const LATENCIES: Record<string, string> = { avg: "mean", med: "p50", min: "min", max: "max" };

/** One Volley threshold: its key and its expression. */
export interface K6ThresholdEntry {
  key: string;
  value: string;
}

/** The Volley key and expression of one k6 threshold expression, or null when there is none. */
function translate(metric: string, request: string | undefined, expression: string): K6ThresholdEntry | null {
  const match = K6_EXPRESSION_RE.exec(expression);
  if (!match) return null;
  const [, aggregate, percentile, operator, value] = match;
  let key: string | undefined;
  let unit = "";
  if (metric === "http_req_duration") {
    key = percentile !== undefined ? `p${percentile.replace(".", "")}` : LATENCIES[aggregate];
    unit = "ms";
  } else if (metric === "http_req_failed" && aggregate === "rate") key = "errorRate";
  else if (metric === "checks" && aggregate === "rate") key = "checks";
  else if (metric === "http_reqs")
    key = aggregate === "rate" ? "rps" : aggregate === "count" ? "requests" : undefined;
  if (!key) return null;
  return { key: `${request ? `${request}.` : ""}${key}`, value: `${operator}${value}${unit}` };
}

const written = (entries: readonly K6ThresholdEntry[]) =>
  entries.map((e) => `"${e.key}": "${e.value}"`).join(", ");

function expressionsOf(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map((v) =>
    typeof v === "object" && v !== null && "threshold" in v ? String(v.threshold) : String(v),
  );
}

/**
 * Volley's thresholds for one k6 threshold (a key with one expression or a list), or null when
 * k6's metric or an expression has no Volley equivalent.
 */
export function k6ThresholdEntries(key: string, value: unknown): K6ThresholdEntry[] | null {
  const expressions = expressionsOf(value);
  const keyMatch = K6_KEY_RE.exec(key.trim());
  if (!keyMatch) return customEntries(key.trim(), expressions);
  const [, metric, request] = keyMatch;
  const entries = expressions.map((e) => translate(metric, request, e));
  return entries.every((e) => e !== null) ? (entries as K6ThresholdEntry[]) : null;
}

/**
 * What to write instead of a k6-style threshold (`key` with one expression or a list), or null
 * when the key is not one of k6's metrics.
 */
export function k6ThresholdHint(key: string, value: unknown): string | null {
  const keyMatch = K6_KEY_RE.exec(key.trim());
  const expressions = expressionsOf(value);
  if (!keyMatch) {
    const custom = customEntries(key.trim(), expressions);
    if (custom) return `a k6 custom metric is written ${written(custom)} in Volley (one key per expression)`;
    return Array.isArray(value)
      ? `a threshold is one expression, not a list: write "${key}": "${expressions[0] ?? "<200ms"}" (one key per expression)`
      : null;
  }
  const [, metric] = keyMatch;
  // `checks` is Volley's too: only a k6 expression ("rate>0.99") or a list is k6's spelling.
  if (metric === "checks" && !Array.isArray(value) && !expressions.some((e) => K6_EXPRESSION_RE.test(e))) {
    return null;
  }
  const entries = k6ThresholdEntries(key, value);
  if (entries) return `k6's ${metric} is written ${written(entries)} in Volley (one key per expression)`;
  return `k6's ${metric} has no Volley threshold of that form: use p50…p999, mean, min, max (ms), errorRate, checks, rps or requests`;
}

/** A k6 custom metric's threshold (`cart_ms: ["p(95)<200"]`) in Volley's spelling, or null. */
function customEntries(key: string, expressions: string[]): K6ThresholdEntry[] | null {
  if (!METRIC_NAME_RE.test(key)) return null;
  const entries: K6ThresholdEntry[] = [];
  for (const expression of expressions) {
    const match = K6_EXPRESSION_RE.exec(expression);
    if (!match) return null;
    const [, aggregate, percentile, operator, value] = match;
    const stat = percentile !== undefined ? `p${percentile.replace(".", "")}` : CUSTOM_STATS[aggregate];
    entries.push({ key: `metrics.${key}.${stat}`, value: `${operator}${value}` });
  }
  return entries.length > 0 ? entries : null;
}
