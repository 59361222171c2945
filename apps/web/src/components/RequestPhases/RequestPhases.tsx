import { type RequestSummary, scopedName } from "@volley/protocol";
import { formatCount, formatMs } from "../../format/format.js";

const PHASES = [
  { key: "connectMs", label: "Connect" },
  { key: "tlsMs", label: "TLS" },
  { key: "waitingMs", label: "Waiting" },
] as const;

/**
 * Where each request name's time went: connecting (0 on a reused connection), TLS, and waiting
 * for the first byte once sent, p50/p95/p99 each, so a slow server and slow connections read apart.
 */
export function RequestPhases({ requests }: { requests: readonly RequestSummary[] }) {
  const timed = requests.filter((r) => r.timings);
  if (timed.length === 0) return null;
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="request-phases">
        <thead>
          <tr>
            <th rowSpan={2}>Request</th>
            <th rowSpan={2}>Timed</th>
            {PHASES.map((p) => (
              <th key={p.key} colSpan={3} className="phase-head">
                {p.label}
              </th>
            ))}
          </tr>
          <tr>
            {PHASES.flatMap((p) => ["p50", "p95", "p99"].map((q) => <th key={`${p.key}-${q}`}>{q}</th>))}
          </tr>
        </thead>
        <tbody>
          {timed.map((r) => (
            <tr key={`${r.scenario ?? ""}-${r.name}`} data-request={r.name}>
              <td>{scopedName(r.scenario, r.name)}</td>
              <td>{formatCount(r.timings?.count)}</td>
              {PHASES.flatMap((p) =>
                (["p50", "p95", "p99"] as const).map((q) => (
                  <td key={`${p.key}-${q}`}>{formatMs(r.timings?.[p.key][q])}</td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
