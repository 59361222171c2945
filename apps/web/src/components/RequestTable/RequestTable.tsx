import {
  LATENCY_COLUMNS,
  type RunSummary,
  scopedName,
  summaryLabel,
  type TimeseriesPoint,
} from "@volley/protocol";
import { formatBytes, formatCount, formatMs, formatRate } from "../../format/format.js";

interface RequestTableProps {
  summary: RunSummary;
  /** Each request's last merged second, for the "now" column while a run is live. */
  now?: Record<string, TimeseriesPoint | undefined>;
}

/** Per-request figures: counts, rates and every percentile the report keeps. */
export function RequestTable({ summary, now }: RequestTableProps) {
  const rows = [
    ...summary.requests.map((r) => ({
      // The name its per-second series is kept under (scoped in a run of `scenarios:`).
      key: scopedName(r.scenario, r.name),
      label: summaryLabel(r),
      totals: r,
      kind: "request",
    })),
    { key: "", label: "Total", totals: summary.total, kind: "total" },
    // Each scenario's requests together, then groups: after the total, of which they are views.
    ...(summary.scenarios ?? []).map((p) => ({
      key: `scenario:${p.name}`,
      label: `scenario ${p.name}`,
      totals: p,
      kind: "group",
    })),
    // A group is timed, not sent: its requests' bytes are theirs ("–", not "0 B").
    ...(summary.groups ?? []).map((g) => ({
      key: scopedName(g.scenario, g.name),
      label: `group ${scopedName(g.scenario, g.name)}`,
      totals: g,
      kind: "group",
      noBytes: true,
    })),
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
            {LATENCY_COLUMNS.map((c) => (
              <th key={c.key}>{c.label}</th>
            ))}
            <th>in</th>
            <th>out</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, label, totals, kind, ...row }) => {
            const noBytes = "noBytes" in row;
            const l = totals.latencyMs;
            const current = now ? (key ? now[key] : now[""]) : undefined;
            return (
              <tr
                key={label}
                className={kind === "total" ? "total-row" : kind === "group" ? "group-row" : undefined}
              >
                <td>{label}</td>
                <td>{formatCount(totals.requests)}</td>
                <td className={totals.failures ? "bad" : undefined}>{formatCount(totals.failures)}</td>
                <td>{formatRate(totals.rps, "")}</td>
                {now && <td>{current ? formatRate(current.rps, "") : "–"}</td>}
                {LATENCY_COLUMNS.map((c) => (
                  <td key={c.key}>{formatMs(l[c.key])}</td>
                ))}
                <td>{noBytes ? "–" : formatBytes(totals.bytesIn)}</td>
                <td>{noBytes ? "–" : formatBytes(totals.bytesOut)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
