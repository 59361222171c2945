import { type RunSummary, requestLabel, type TimeseriesPoint } from "@volley/protocol";
import { formatBytes, formatCount, formatMs, formatRate } from "../../format/format.js";

interface RequestTableProps {
  summary: RunSummary;
  /** Each request's last merged second, for the "now" column while a run is live. */
  now?: Record<string, TimeseriesPoint | undefined>;
}

/** Per-request figures: counts, rates and every percentile the report keeps. */
export function RequestTable({ summary, now }: RequestTableProps) {
  const rows = [
    ...summary.requests.map((r) => ({ key: r.name, label: requestLabel(r.method, r.name), totals: r })),
    { key: "", label: "Total", totals: summary.total },
  ];
  return (
    <div className="table-scroll">
      <table className="data-table" data-testid="request-table">
        <thead>
          <tr>
            <th>Request</th>
            <th>Requests</th>
            <th>Failures</th>
            <th>req/s</th>
            {now && <th>now</th>}
            <th>min</th>
            <th>mean</th>
            <th>p50</th>
            <th>p75</th>
            <th>p90</th>
            <th>p95</th>
            <th>p99</th>
            <th>p99.9</th>
            <th>max</th>
            <th>in</th>
            <th>out</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, label, totals }) => {
            const l = totals.latencyMs;
            const current = now ? (key ? now[key] : now[""]) : undefined;
            return (
              <tr key={label} className={key === "" ? "total-row" : undefined}>
                <td>{label}</td>
                <td>{formatCount(totals.requests)}</td>
                <td className={totals.failures ? "bad" : undefined}>{formatCount(totals.failures)}</td>
                <td>{formatRate(totals.rps, "")}</td>
                {now && <td>{current ? formatRate(current.rps, "") : "–"}</td>}
                <td>{formatMs(l.min)}</td>
                <td>{formatMs(l.mean)}</td>
                <td>{formatMs(l.p50)}</td>
                <td>{formatMs(l.p75)}</td>
                <td>{formatMs(l.p90)}</td>
                <td>{formatMs(l.p95)}</td>
                <td>{formatMs(l.p99)}</td>
                <td>{formatMs(l.p999)}</td>
                <td>{formatMs(l.max)}</td>
                <td>{formatBytes(totals.bytesIn)}</td>
                <td>{formatBytes(totals.bytesOut)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
