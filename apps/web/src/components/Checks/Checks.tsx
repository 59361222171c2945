import { formatPassRate, type RunSummary } from "@volley/protocol";
import { formatCount } from "../../format/format.js";

/** Each check with its passes, fails and pass rate. */
export function Checks({ checks }: { checks: NonNullable<RunSummary["checks"]> }) {
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="checks">
        <thead>
          <tr>
            <th>Check</th>
            <th>Passes</th>
            <th>Fails</th>
            <th>Pass rate</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c) => (
            <tr key={c.name}>
              <td>
                <span className={c.fails ? "bad" : "good"}>{c.fails ? "✗" : "✓"}</span> {c.name}
              </td>
              <td>{formatCount(c.passes)}</td>
              <td className={c.fails ? "bad" : undefined}>{formatCount(c.fails)}</td>
              <td>{formatPassRate(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
