import {
  type LatencyDistribution as Distribution,
  LINE_COLOURS,
  type RunSummary,
  scopedName,
  summaryLabel,
} from "@volley/protocol";
import { useApi } from "../../api/use-api.js";
import { DistributionChart, type DistributionLine } from "./DistributionChart.js";

/** Lines of requests drawn beside the whole run's; past them the chart would be a tangle. */
const MAX_REQUEST_LINES = LINE_COLOURS.length;

/** A finished run's latency distribution: the whole run's, and each request's beside it. */
export function LatencyDistribution({ runId, summary }: { runId: string; summary: RunSummary }) {
  const distribution = useApi<Distribution>(`/api/runs/${runId}/distribution`);
  if (distribution.error) return <div className="callout bad">{distribution.error.message}</div>;
  const data = distribution.data;
  if (!data || data.total.length === 0) return null;
  const requests = summary.requests
    .map((r) => ({ label: summaryLabel(r), points: data.requests[scopedName(r.scenario, r.name)] }))
    .filter((r) => r.points && r.points.length > 0)
    .slice(0, MAX_REQUEST_LINES);
  const lines: DistributionLine[] = [
    { label: "whole run", points: data.total },
    ...requests.map((r, i) => ({
      label: r.label,
      color: LINE_COLOURS[i],
      points: r.points,
      dashed: true,
    })),
  ];
  return (
    <section data-testid="latency-distribution">
      <h2>Latency distribution</h2>
      <DistributionChart title="Latency by percentile" lines={lines} />
    </section>
  );
}
