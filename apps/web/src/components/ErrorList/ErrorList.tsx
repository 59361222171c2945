import type { RunSummary } from "@volley/protocol";
import { formatCount } from "../../format/format.js";

/** Errors by kind, with the request and a sample message. */
export function ErrorList({ errors }: { errors: RunSummary["errors"] }) {
  if (!errors.length) return <p className="muted">No errors.</p>;
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="error-list">
        <thead>
          <tr>
            <th>Kind</th>
            <th className="left">Request</th>
            <th className="left">Sample message</th>
            <th>Count</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((e) => (
            <tr key={`${e.kind}-${e.request}-${e.message}`}>
              <td>
                <span className={`badge kind-${e.kind}`}>{e.kind}</span>
              </td>
              <td className="left">{e.request}</td>
              <td className="wrap">{e.message}</td>
              <td>{formatCount(e.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
