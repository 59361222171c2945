import {
  type MetricPoint,
  metricChart,
  metricFigures,
  metricTypeLabel,
  type RunSummary,
} from "@volley/protocol";
import { useMemo } from "react";
import { Chart } from "../Chart/Chart.js";

interface MetricsProps {
  metrics: NonNullable<RunSummary["metrics"]>;
  /** Each metric's seconds (see MetricPoint). */
  points: Record<string, MetricPoint[]>;
  onSelect?: (from: number, to: number) => void;
}

/** A script's own metrics: each with its type and figures, then a chart of each over the run. */
export function Metrics({ metrics, points, onSelect }: MetricsProps) {
  const names = Object.keys(metrics);
  return (
    <>
      <div className="table-scroll">
        <table className="data-table compact" data-testid="metrics">
          <thead>
            <tr>
              <th>Metric</th>
              <th className="left">Type</th>
              <th className="left">Figures</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name) => (
              <tr key={name} data-metric={name}>
                <td>{name}</td>
                <td className="left">{metricTypeLabel(metrics[name])}</td>
                <td className="left metric-figures">
                  {metricFigures(metrics[name]).map((f) => (
                    <span key={f.label} data-figure={f.label}>
                      {f.label} <b>{f.text}</b>
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="chart-grid">
        {names.map((name) => (
          <MetricChart
            key={name}
            name={name}
            metric={metrics[name]}
            points={points[name] ?? []}
            onSelect={onSelect}
          />
        ))}
      </div>
    </>
  );
}

function MetricChart({
  name,
  metric,
  points,
  onSelect,
}: {
  name: string;
  metric: NonNullable<RunSummary["metrics"]>[string];
  points: MetricPoint[];
  onSelect?: (from: number, to: number) => void;
}) {
  const chart = useMemo(() => metricChart(metric, points), [metric, points]);
  const x = useMemo(() => points.map((p) => p.t), [points]);
  return <Chart title={name} unit={chart.unit} x={x} series={chart.lines} onSelect={onSelect} />;
}
