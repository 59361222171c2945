import type { RunSummary } from "@volley/protocol";
import { formatCount } from "../../format/format.js";
import { TraceLink } from "../TraceLink/TraceLink.js";

/** Errors by kind, with the request, a sample message and, when traced, some of their trace ids. */
export function ErrorList({
  errors,
  traceTemplate,
}: {
  errors: RunSummary["errors"];
  traceTemplate?: string;
}) {
  if (!errors.length) return <p className="muted">No errors.</p>;
  const traced = errors.some((e) => e.traceIds && e.traceIds.length > 0);
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="error-list">
        <thead>
          <tr>
            <th>Kind</th>
            <th className="left">Request</th>
            <th className="left">Sample message</th>
            <th>Count</th>
            {traced && <th className="left">Traces</th>}
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
              {traced && (
                <td className="left trace-list">
                  {(e.traceIds ?? []).map((id) => (
                    <TraceLink key={id} traceId={id} template={traceTemplate} />
                  ))}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
