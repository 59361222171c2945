import { type RequestSummary, scopedName } from "@volley/protocol";
import { formatMs } from "../../format/format.js";
import { TraceLink } from "../TraceLink/TraceLink.js";

interface SlowestRequestsProps {
  requests: readonly RequestSummary[];
  /** When the run started (ISO): each request's end is shown as seconds into the run. */
  startedAt: string | null;
  template?: string;
  testId?: string;
}

/**
 * The slowest requests of each name (of the run, or of a window of it) with their trace ids,
 * each a link into the traced system when the scenario gives `http.tracing.linkTemplate`.
 */
export function SlowestRequests({ requests, startedAt, template, testId = "slowest" }: SlowestRequestsProps) {
  const traced = requests.filter((r) => r.slowest && r.slowest.length > 0);
  if (traced.length === 0) return null;
  const start = startedAt ? Date.parse(startedAt) : Number.NaN;
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid={testId}>
        <thead>
          <tr>
            <th>Request</th>
            <th>Latency</th>
            <th>Ended at</th>
            <th className="left">Trace</th>
          </tr>
        </thead>
        <tbody>
          {traced.flatMap((r) =>
            (r.slowest ?? []).map((trace, i) => (
              <tr key={`${r.name}-${trace.traceId}`} data-request={r.name}>
                <td>{i === 0 ? scopedName(r.scenario, r.name) : ""}</td>
                <td>{formatMs(trace.ms)}</td>
                <td>{Number.isNaN(start) ? "–" : `${((trace.at - start) / 1000).toFixed(1)} s`}</td>
                <td className="left">
                  <TraceLink traceId={trace.traceId} template={template} />
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
