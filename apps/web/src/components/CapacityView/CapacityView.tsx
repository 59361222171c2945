import {
  type CapacityResult,
  capacityStairs,
  formatMs,
  MEASURE_COLOURS,
  PERCENTILE_COLOURS,
  stepVerdict,
} from "@volley/protocol";
import { useMemo } from "react";
import { formatPercent, formatRate } from "../../format/format.js";
import { Chart } from "../Chart/Chart.js";

interface CapacityViewProps {
  capacity: CapacityResult;
  /** The SLO's p95 limit in ms, drawn as a line on the latency steps. */
  p95LimitMs: number | null;
}

/** A capacity search: its answer in a sentence, the staircase of rates and p95 with the SLO, each step. */
export function CapacityView({ capacity, p95LimitMs }: CapacityViewProps) {
  const stairs = useMemo(() => capacityStairs(capacity), [capacity]);
  const x = stairs.rate.map(([t]) => t);
  const rateSeries = useMemo(
    () => [
      { label: "planned rate", color: MEASURE_COLOURS.planned, values: stairs.rate.map(([, v]) => v) },
      { label: "achieved", color: MEASURE_COLOURS.throughput, values: stairs.achieved.map(([, v]) => v) },
    ],
    [stairs],
  );
  const latencySeries = useMemo(
    () => [
      { label: "p95", color: PERCENTILE_COLOURS.p95, values: stairs.p95.map(([, v]) => v) },
      ...(p95LimitMs !== null
        ? [
            {
              label: "SLO",
              color: MEASURE_COLOURS.errors,
              values: stairs.p95.map(() => p95LimitMs),
              dashed: true,
            },
          ]
        : []),
    ],
    [stairs, p95LimitMs],
  );
  const tone = capacity.searching ? "" : capacity.limitedBy === "maxVus" ? "warn" : "good";
  return (
    <section className="capacity-view" data-testid="capacity">
      <h2>Capacity</h2>
      <div className={`callout ${tone}`} data-testid="capacity-sentence" data-limited-by={capacity.limitedBy}>
        {capacity.sentence}
      </div>
      {capacity.steps.length > 0 && (
        <>
          <div className="chart-grid">
            <Chart title="Rate by step" unit="per second" x={x} series={rateSeries} />
            <Chart title="p95 by step" unit="ms" x={x} series={latencySeries} />
          </div>
          <div className="table-scroll">
            <table className="data-table compact" data-testid="capacity-steps">
              <thead>
                <tr>
                  <th>Step</th>
                  <th>Rate</th>
                  <th>Achieved</th>
                  <th>p95</th>
                  <th>p99</th>
                  <th>Errors</th>
                  <th>Dropped</th>
                  <th>SLO</th>
                </tr>
              </thead>
              <tbody>
                {capacity.steps.map((step, i) => (
                  <tr key={step.rate}>
                    <td>{i + 1}</td>
                    <td>{formatRate(step.rate)}</td>
                    <td>{formatRate(step.achievedRps)}</td>
                    <td>{step.p95 === null ? "–" : formatMs(step.p95)}</td>
                    <td>{step.p99 === null ? "–" : formatMs(step.p99)}</td>
                    <td>{formatPercent(step.errorRate)}</td>
                    <td>{step.dropped}</td>
                    <td className={step.ok ? "good" : step.noise ? "" : "bad"}>{stepVerdict(step)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
