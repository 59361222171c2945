import {
  COMPARE_COLOURS,
  type DistributionPoint,
  type LatencyDistribution,
  type Timeseries,
  type TimeseriesPoint,
} from "@volley/protocol";
import { useMemo, useState } from "react";
import { useApi } from "../../api/use-api.js";
import { Chart } from "../Chart/Chart.js";
import { DistributionChart } from "../LatencyDistribution/DistributionChart.js";

const PERCENTILES = ["p50", "p95", "p99"] as const;
type Percentile = (typeof PERCENTILES)[number];

/**
 * Runs A and B drawn over each other, aligned at each run's start: latency by percentile,
 * throughput and a chosen percentile over time, for the whole run or one request both have.
 */
export function CompareOverlays({ a, b, requests }: { a: string; b: string; requests: string[] }) {
  const [part, setPart] = useState("");
  const [percentile, setPercentile] = useState<Percentile>("p95");
  const seriesA = useApi<Timeseries>(`/api/runs/${a}/timeseries`);
  const seriesB = useApi<Timeseries>(`/api/runs/${b}/timeseries`);
  const distributionA = useApi<LatencyDistribution>(`/api/runs/${a}/distribution`);
  const distributionB = useApi<LatencyDistribution>(`/api/runs/${b}/distribution`);
  const overlay = useMemo(() => {
    const pointsOf = (series: Timeseries | null) => (part ? series?.requests[part] : series?.overall) ?? [];
    return aligned(pointsOf(seriesA.data), pointsOf(seriesB.data), percentile);
  }, [seriesA.data, seriesB.data, part, percentile]);
  const distributionOf = (d: LatencyDistribution | null): DistributionPoint[] | undefined =>
    part ? d?.requests[part] : d?.total;
  const curveA = distributionOf(distributionA.data);
  const curveB = distributionOf(distributionB.data);
  const what = part || "all requests";
  return (
    <section data-testid="compare-overlays">
      <h2>Over each other</h2>
      <div className="compare-controls">
        <label>
          Show{" "}
          <select
            className="compare-select"
            value={part}
            onChange={(event) => setPart(event.target.value)}
            aria-label="Requests shown"
          >
            <option value="">whole run</option>
            {requests.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="chart-scope">
          <legend>Latency over time</legend>
          <div className="tabs">
            {PERCENTILES.map((key) => (
              <button
                key={key}
                type="button"
                aria-pressed={percentile === key}
                className={percentile === key ? "active" : undefined}
                onClick={() => setPercentile(key)}
              >
                {key}
              </button>
            ))}
          </div>
        </fieldset>
      </div>
      <div className="chart-grid spaced">
        {curveA && curveB && (
          <div data-testid="compare-distribution">
            <DistributionChart
              title={`Latency by percentile, A and B (${what})`}
              lines={[
                { label: "A", color: COMPARE_COLOURS.a, points: curveA },
                { label: "B", color: COMPARE_COLOURS.b, points: curveB, dashed: true },
              ]}
            />
          </div>
        )}
        <Chart
          title={`Throughput (${what})`}
          unit="requests/s"
          x={overlay.x}
          series={[
            { label: "A", color: COMPARE_COLOURS.a, values: overlay.rpsA },
            { label: "B", color: COMPARE_COLOURS.b, values: overlay.rpsB, dashed: true },
          ]}
        />
        <Chart
          title={`${percentile} latency (${what})`}
          unit="ms"
          x={overlay.x}
          series={[
            { label: "A", color: COMPARE_COLOURS.a, values: overlay.latencyA },
            { label: "B", color: COMPARE_COLOURS.b, values: overlay.latencyB, dashed: true },
          ]}
        />
      </div>
    </section>
  );
}

/** Both runs' points on one axis of seconds from each run's start (a missing second is a gap). */
function aligned(pa: readonly TimeseriesPoint[], pb: readonly TimeseriesPoint[], percentile: Percentile) {
  const end = (points: readonly TimeseriesPoint[]) => (points.length ? points[points.length - 1].t + 1 : 0);
  const x = Array.from({ length: Math.max(end(pa), end(pb)) }, (_, i) => i);
  const at = (points: readonly TimeseriesPoint[], read: (p: TimeseriesPoint) => number | null) => {
    const byT = new Map(points.map((p) => [p.t, read(p)]));
    return x.map((t) => byT.get(t) ?? null);
  };
  return {
    x,
    rpsA: at(pa, (p) => p.rps),
    rpsB: at(pb, (p) => p.rps),
    latencyA: at(pa, (p) => p[percentile]),
    latencyB: at(pb, (p) => p[percentile]),
  };
}
