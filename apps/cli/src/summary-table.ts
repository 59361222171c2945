import {
  formatMs,
  formatPassRate,
  formatThresholdActual,
  metricFigures,
  metricTypeLabel,
  type RunDetail,
  scopedName,
  summaryLabel,
  type TotalsSummary,
} from "@volley/protocol";

/** The final table of `volley run`: one row per request and a total, aligned for a terminal. */
export function formatSummaryTable(run: RunDetail): string {
  const header = ["Request", "Requests", "Failures", "req/s", "min", "mean", "p50", "p95", "p99", "max"];
  // A rate over less than a second of load says nothing (one request "at 87 req/s").
  const rated = run.summary.durationS >= 1;
  const cells = (name: string, t: TotalsSummary) => rowCells(name, t, rated);
  const rows = run.summary.requests.map((r) => cells(summaryLabel(r), r));
  const total = cells("Total", run.summary.total);
  // Groups after the total: their runs are not requests.
  const groups = [
    ...(run.summary.scenarios ?? []).map((p) => cells(`scenario ${p.name}`, p)),
    ...(run.summary.groups ?? []).map((g) => cells(`group ${scopedName(g.scenario, g.name)}`, g)),
  ];
  const all = [...rows, total, ...groups];
  const widths = header.map((h, i) => Math.max(h.length, ...all.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const out = [line(header), rule, ...rows.map(line), rule, line(total)];
  if (groups.length) out.push(rule, ...groups.map(line));
  const checks = run.summary.checks ?? [];
  if (checks.length) {
    out.push("", "Checks");
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) {
      out.push(
        `  ${c.fails ? "✗" : "✓"} ${c.name.padEnd(width)}  ${c.passes} passed, ${c.fails} failed  (${formatPassRate(c)})`,
      );
    }
  }
  const metrics = Object.entries(run.summary.metrics ?? {});
  if (metrics.length) {
    out.push("", "Metrics");
    const width = Math.max(...metrics.map(([name]) => name.length));
    const typeWidth = Math.max(...metrics.map(([, metric]) => metricTypeLabel(metric).length));
    for (const [name, metric] of metrics) {
      const figures = metricFigures(metric).map((f) => `${f.label} ${f.text}`);
      out.push(
        `  ${name.padEnd(width)}  ${metricTypeLabel(metric).padEnd(typeWidth)}  ${figures.join("  ")}`,
      );
    }
  }
  return out.join("\n");
}

function rowCells(name: string, t: TotalsSummary, rated: boolean): string[] {
  const l = t.latencyMs;
  return [
    name,
    t.requests.toLocaleString("en-US"),
    t.failures.toLocaleString("en-US"),
    rated ? t.rps.toFixed(1) : "–",
    ...[l.min, l.mean, l.p50, l.p95, l.p99, l.max].map((v) => formatMs(v)),
  ];
}

export function formatThresholds(run: RunDetail): string {
  if (!run.thresholds.length) return "";
  return run.thresholds
    .map((t) => `  ${t.pass ? "✓" : "✗"} ${t.key} ${t.expression}  (actual ${formatThresholdActual(t)})`)
    .join("\n");
}
