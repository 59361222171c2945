import {
  type CompareResult,
  type MetricDelta,
  type MetricSummary,
  type RunSummary,
  scopedName,
  type TotalsSummary,
} from "@volley/protocol";

/** For each compared metric: true when a higher value is better. */
const HIGHER_IS_BETTER: Record<string, boolean> = {
  requests: true,
  rps: true,
  failures: false,
  errorRate: false,
  dropped: false,
  min: false,
  mean: false,
  max: false,
  p50: false,
  p75: false,
  p90: false,
  p95: false,
  p99: false,
  p999: false,
};

export function metricDelta(a: number | null, b: number | null, higherIsBetter: boolean): MetricDelta {
  if (a === null || b === null) return { a, b, delta: null, ratio: null, better: null };
  const delta = b - a;
  return {
    a,
    b,
    delta,
    ratio: a !== 0 ? delta / a : null,
    better: delta === 0 ? null : delta > 0 === higherIsBetter,
  };
}

function flatten(totals: TotalsSummary | undefined): Record<string, number | null> {
  if (!totals) return Object.fromEntries(Object.keys(HIGHER_IS_BETTER).map((k) => [k, null]));
  return {
    requests: totals.requests,
    rps: totals.rps,
    failures: totals.failures,
    errorRate: totals.requests ? totals.failures / totals.requests : 0,
    dropped: totals.dropped,
    ...totals.latencyMs,
  };
}

function compareTotals(
  a: TotalsSummary | undefined,
  b: TotalsSummary | undefined,
): Record<string, MetricDelta> {
  const fa = flatten(a);
  const fb = flatten(b);
  return Object.fromEntries(
    Object.entries(HIGHER_IS_BETTER).map(([metric, higher]) => [
      metric,
      metricDelta(fa[metric], fb[metric], higher),
    ]),
  );
}

type Named = TotalsSummary & { name: string; scenario?: string };

/** Each name either list has, side by side (a request of `scenarios:` as "SCENARIO · NAME"). */
function compareNamed(a: readonly Named[], b: readonly Named[]) {
  const key = (r: Named) => scopedName(r.scenario, r.name);
  const names = [...new Set([...a.map(key), ...b.map(key)])];
  return names.map((name) => ({
    name,
    metrics: compareTotals(
      a.find((r) => key(r) === name),
      b.find((r) => key(r) === name),
    ),
  }));
}

/** Two run summaries side by side: totals, every request name, scenario and group either run has. */
export function compareSummaries(a: RunSummary, b: RunSummary) {
  const scenarios = compareNamed(a.scenarios ?? [], b.scenarios ?? []);
  const groups = compareNamed(a.groups ?? [], b.groups ?? []);
  return {
    total: compareTotals(a.total, b.total),
    requests: compareNamed(a.requests, b.requests),
    ...(scenarios.length ? { scenarios } : {}),
    ...(groups.length ? { groups } : {}),
    ...compareMetrics(a, b),
  };
}

/**
 * Each custom metric either run has, figure by figure (of the type run A has it as, else B's).
 * Never judged better or worse: only the script knows whether its metric should rise or fall.
 */
function compareMetrics(a: RunSummary, b: RunSummary): Pick<CompareResult, "metrics"> {
  const names = [...new Set([...Object.keys(a.metrics ?? {}), ...Object.keys(b.metrics ?? {})])];
  if (names.length === 0) return {};
  const metrics = names.map((name) => {
    const ma = a.metrics?.[name];
    const mb = b.metrics?.[name];
    const shape = (ma ?? mb) as MetricSummary;
    const figures = (m: MetricSummary | undefined) =>
      m && m.type === shape.type ? (m as Record<string, unknown>) : {};
    const fa = figures(ma);
    const fb = figures(mb);
    const deltas: Record<string, MetricDelta> = {};
    for (const [key, value] of Object.entries(shape)) {
      if (typeof value !== "number") continue;
      const delta = metricDelta(numberOr(fa[key]), numberOr(fb[key]), true);
      deltas[key] = { ...delta, better: null };
    }
    return {
      name,
      type: shape.type,
      ...(shape.type === "trend" ? { unit: shape.unit } : {}),
      metrics: deltas,
    };
  });
  return { metrics };
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}
