import { type RequestSummary, scopedName } from "@volley/protocol";
import { formatCount, formatMs } from "../../format/format.js";

/** Each streamed request's timings: to its first byte and first event, and between events. */
export function Streams({ requests }: { requests: readonly RequestSummary[] }) {
  const streamed = requests.filter((r) => r.stream);
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="streams">
        <thead>
          <tr>
            <th>Request</th>
            <th>First byte p95</th>
            <th>First event p50</th>
            <th>First event p95</th>
            <th>Gap p50</th>
            <th>Gap p99</th>
            <th>Events</th>
            <th>Per stream</th>
          </tr>
        </thead>
        <tbody>
          {streamed.map((r) => (
            <tr key={scopedName(r.scenario, r.name)}>
              <td>{scopedName(r.scenario, r.name)}</td>
              <td>{formatMs(r.stream?.firstByteMs.p95)}</td>
              <td>{formatMs(r.stream?.firstEventMs.p50)}</td>
              <td>{formatMs(r.stream?.firstEventMs.p95)}</td>
              <td>{formatMs(r.stream?.gapMs.p50)}</td>
              <td>{formatMs(r.stream?.gapMs.p99)}</td>
              <td>{formatCount(r.stream?.events)}</td>
              <td>{r.stream?.eventsPerStream}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
