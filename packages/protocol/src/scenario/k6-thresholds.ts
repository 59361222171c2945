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

/** The Volley key and expression of one k6 threshold expression, or null when there is none. */
function translate(metric: string, request: string | undefined, expression: string): string | null {
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
  return `"${request ? `${request}.` : ""}${key}": "${operator}${value}${unit}"`;
}

/**
 * What to write instead of a k6-style threshold (`key` with one expression or a list), or null
 * when the key is not one of k6's metrics.
 */
export function k6ThresholdHint(key: string, value: unknown): string | null {
  const keyMatch = K6_KEY_RE.exec(key.trim());
  const expressions = (Array.isArray(value) ? value : [value]).map((v) =>
    typeof v === "object" && v !== null && "threshold" in v ? String(v.threshold) : String(v),
  );
  if (!keyMatch) {
    const custom = customHint(key.trim(), expressions);
    if (custom) return custom;
    return Array.isArray(value)
      ? `a threshold is one expression, not a list: write "${key}": "${expressions[0] ?? "<200ms"}" (one key per expression)`
      : null;
  }
  const [, metric, request] = keyMatch;
  // `checks` is Volley's too: only a k6 expression ("rate>0.99") or a list is k6's spelling.
  if (metric === "checks" && !Array.isArray(value) && !expressions.some((e) => K6_EXPRESSION_RE.test(e))) {
    return null;
  }
  const written = expressions.map((e) => translate(metric, request, e));
  if (written.every((w) => w !== null)) {
    return `k6's ${metric} is written ${written.join(", ")} in Volley (one key per expression)`;
  }
  return `k6's ${metric} has no Volley threshold of that form: use p50…p999, mean, min, max (ms), errorRate, checks, rps or requests`;
}

/** A k6 custom metric's threshold (`cart_ms: ["p(95)<200"]`) in Volley's spelling, or null. */
function customHint(key: string, expressions: string[]): string | null {
  if (!METRIC_NAME_RE.test(key)) return null;
  const written: string[] = [];
  for (const expression of expressions) {
    const match = K6_EXPRESSION_RE.exec(expression);
    if (!match) return null;
    const [, aggregate, percentile, operator, value] = match;
    const stat = percentile !== undefined ? `p${percentile.replace(".", "")}` : CUSTOM_STATS[aggregate];
    written.push(`"metrics.${key}.${stat}": "${operator}${value}"`);
  }
  return written.length
    ? `a k6 custom metric is written ${written.join(", ")} in Volley (one key per expression)`
    : null;
}
