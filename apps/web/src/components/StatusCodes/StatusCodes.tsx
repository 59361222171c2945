import { isFailingStatusKey } from "@volley/protocol";
import { formatCount, formatPercent } from "../../format/format.js";

/** Responses by status (HTTP codes and gRPC statuses), with their share. */
export function StatusCodes({ codes }: { codes: Record<string, number> }) {
  const entries = Object.entries(codes).sort(([a], [b]) => a.localeCompare(b));
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (!entries.length) return <p className="muted">No responses yet.</p>;
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="status-codes">
        <thead>
          <tr>
            <th>Status</th>
            <th>Count</th>
            <th>Share</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([code, count]) => (
            <tr key={code}>
              <td className={isFailingStatusKey(code) ? "bad" : undefined}>{code}</td>
              <td>{formatCount(count)}</td>
              <td>{formatPercent(count / total, 1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
