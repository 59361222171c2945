import {
  type MetricPoint,
  metricChart,
  metricFigures,
  metricTypeLabel,
  type RunDetail,
  type Timeseries,
} from "@volley/protocol";
import { escapeHtml, svgLineChart } from "./svg-chart.js";

/** The HTML report's custom metrics: each with its type and figures, then a chart of each over time. */
export function metricsSection(run: RunDetail, series: Timeseries): string {
  const metrics = Object.entries(run.summary.metrics ?? {});
  if (metrics.length === 0) return "";
  const rows = metrics
    .map(
      ([name, metric]) =>
        `<tr><td class="text">${escapeHtml(name)}</td><td class="text">${escapeHtml(metricTypeLabel(metric))}</td><td class="text wrap">${metricFigures(
          metric,
        )
          .map((f) => `${escapeHtml(f.label)} <b>${escapeHtml(f.text)}</b>`)
          .join(" · ")}</td></tr>`,
    )
    .join("");
  const charts = metrics
    .map(([name, metric]) => {
      const points: MetricPoint[] = series.metrics?.[name] ?? [];
      const chart = metricChart(metric, points);
      return svgLineChart(
        name,
        chart.unit,
        chart.lines.map((line) => ({
          label: line.label,
          color: line.color,
          points: points.map((p, i) => [p.t, line.values[i]] as [number, number | null]),
        })),
      );
    })
    .join("\n");
  return `<h2>Metrics</h2>
<p>The script's own metrics (<code>vu.metrics</code>), merged across every worker.</p>
<table><thead><tr><th class="text">Metric</th><th class="text">Type</th><th class="text">Figures</th></tr></thead><tbody>${rows}</tbody></table>
${charts}`;
}
