import type { CompareResult, MetricDelta } from "@volley/protocol";
import { Link, useSearchParams } from "react-router-dom";
import { useApi } from "../api/use-api.js";
import { CompareMetrics } from "../components/CompareMetrics/CompareMetrics.js";
import { CompareOverlays } from "../components/CompareOverlays/CompareOverlays.js";
import { DistributionShift } from "../components/DistributionShift/DistributionShift.js";
import { When } from "../components/When/When.js";
import { formatCount, formatMs, formatPercent, formatRate } from "../format/format.js";

const METRICS: Array<{ key: string; label: string; format: (v: number | null) => string }> = [
  { key: "requests", label: "Requests", format: formatCount },
  { key: "rps", label: "Throughput", format: (v) => formatRate(v) },
  { key: "errorRate", label: "Error rate", format: (v) => formatPercent(v) },
  { key: "min", label: "min", format: formatMs },
  { key: "mean", label: "mean", format: formatMs },
  { key: "p50", label: "p50", format: formatMs },
  { key: "p90", label: "p90", format: formatMs },
  { key: "p95", label: "p95", format: formatMs },
  { key: "p99", label: "p99", format: formatMs },
  { key: "p999", label: "p99.9", format: formatMs },
  { key: "max", label: "max", format: formatMs },
];

/** /compare?a=&b= — two runs side by side, deltas coloured by direction, charts overlaid. */
export function ComparePage() {
  const [params] = useSearchParams();
  const a = params.get("a");
  const b = params.get("b");
  const result = useApi<CompareResult>(
    a && b ? `/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}` : null,
  );
  if (!a || !b)
    return (
      <div className="callout">
        Pick two runs on the <Link to="/runs">history</Link> page.
      </div>
    );
  if (result.error) return <div className="callout bad">{result.error.message}</div>;
  if (!result.data) return <p className="muted">Loading…</p>;
  const compared = result.data;
  const { a: runA, b: runB } = compared;
  return (
    <div>
      <div className="page-head">
        <h1>Compare</h1>
      </div>
      <p data-testid="compared-runs">
        <span className="legend-a">A</span> <Link to={`/runs/${runA.id}`}>{runA.name}</Link> (started{" "}
        <When iso={runA.startedAt ?? runA.createdAt} />) · <span className="legend-b">B</span>{" "}
        <Link to={`/runs/${runB.id}`}>{runB.name}</Link> (started{" "}
        <When iso={runB.startedAt ?? runB.createdAt} />)
      </p>
      <section>
        <h2>Whole run</h2>
        <DeltaTable testId="compare-table" sections={[{ deltas: result.data.total }]} />
      </section>
      <DistributionShift shift={result.data.shift} />
      <CompareOverlays
        a={runA.id}
        b={runB.id}
        requests={result.data.requests.map((r) => r.name).filter((name) => bothHave(compared, name))}
      />
      {/* Every part in one table, so A, B and Change line up down the page. */}
      <section>
        <h2>By part</h2>
        <DeltaTable
          testId="compare-parts"
          sections={[
            ...(result.data.scenarios ?? []).map((s) => ({ title: `Scenario ${s.name}`, deltas: s.metrics })),
            ...result.data.requests.map((r) => ({ title: r.name, deltas: r.metrics })),
            ...(result.data.groups ?? []).map((g) => ({ title: `Group ${g.name}`, deltas: g.metrics })),
          ]}
        />
      </section>
      {result.data.metrics && <CompareMetrics metrics={result.data.metrics} />}
    </div>
  );
}

/** Whether both runs measured the request (a request only one has has nothing to overlay). */
function bothHave(result: CompareResult, name: string): boolean {
  const has = (run: CompareResult["a"]) => run.summary.requests.some((r) => r.name === name);
  return has(result.a) && has(result.b);
}

interface DeltaSection {
  title?: string;
  deltas: Record<string, MetricDelta>;
}

function DeltaTable({ sections, testId }: { sections: DeltaSection[]; testId: string }) {
  return (
    <div className="table-scroll">
      <table className="data-table compact compare-table" data-testid={testId}>
        <thead>
          <tr>
            <th>Metric</th>
            <th>A</th>
            <th>B</th>
            <th>Change</th>
          </tr>
        </thead>
        {sections.map((section) => (
          <tbody key={section.title ?? ""}>
            {section.title && (
              <tr className="part-row">
                <th colSpan={4} scope="rowgroup">
                  {section.title}
                </th>
              </tr>
            )}
            {METRICS.map(({ key, label, format }) => {
              const d = section.deltas[key];
              if (!d) return null;
              const tone = d.better === null ? "" : d.better ? "good" : "bad";
              return (
                <tr key={key}>
                  <td>{label}</td>
                  <td>{format(d.a)}</td>
                  <td>{format(d.b)}</td>
                  <td className={tone}>{change(d, format)}</td>
                </tr>
              );
            })}
          </tbody>
        ))}
      </table>
    </div>
  );
}

function change(d: MetricDelta, format: (v: number | null) => string): string {
  if (d.ratio !== null) return `${d.ratio > 0 ? "+" : ""}${(d.ratio * 100).toFixed(1)} %`;
  return d.delta === null || d.delta === 0 ? "–" : format(d.delta);
}
