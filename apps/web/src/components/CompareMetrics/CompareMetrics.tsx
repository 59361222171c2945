import { type CompareResult, formatMetricValue, formatNumber, type MetricDelta } from "@volley/protocol";
import { formatPercent } from "../../format/format.js";

type ComparedMetric = NonNullable<CompareResult["metrics"]>[number];

/** Labels of a custom metric's figures, as its run page names them. */
const LABELS: Record<string, string> = { p999: "p99.9", count: "count", passes: "true", fails: "false" };

/**
 * A script's custom metrics of two runs side by side, figure by figure. The change is not
 * coloured: only the script knows whether its metric should rise or fall.
 */
export function CompareMetrics({ metrics }: { metrics: ComparedMetric[] }) {
  return (
    <section>
      <h2>Metrics</h2>
      <div className="table-scroll">
        <table className="data-table compact compare-table" data-testid="compare-metrics">
          <thead>
            <tr>
              <th>Figure</th>
              <th>A</th>
              <th>B</th>
              <th>Change</th>
            </tr>
          </thead>
          {metrics.map((metric) => (
            <tbody key={metric.name}>
              <tr className="part-row">
                <th colSpan={4} scope="rowgroup">
                  {metric.name} · {metric.type === "trend" ? `trend (${metric.unit})` : metric.type}
                </th>
              </tr>
              {Object.entries(metric.metrics).map(([key, delta]) => (
                <tr key={key}>
                  <td>{LABELS[key] ?? key}</td>
                  <td>{formatFigure(metric, key, delta.a)}</td>
                  <td>{formatFigure(metric, key, delta.b)}</td>
                  <td>{change(delta)}</td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </section>
  );
}

function formatFigure(metric: ComparedMetric, key: string, value: number | null): string {
  if (value === null) return "–";
  if (metric.type === "rate" && key === "rate") return formatPercent(value);
  if (metric.type === "trend" && key !== "count") return formatMetricValue(value, metric.unit ?? "ms");
  return formatNumber(value, 3);
}

function change(d: MetricDelta): string {
  if (d.ratio !== null) return `${d.ratio > 0 ? "+" : ""}${(d.ratio * 100).toFixed(1)} %`;
  return d.delta === null || d.delta === 0 ? "–" : formatNumber(d.delta, 3);
}
