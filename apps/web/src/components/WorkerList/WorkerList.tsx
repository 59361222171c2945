import type { WorkerInfo } from "@volley/protocol";
import { formatCount } from "../../format/format.js";
import { When } from "../When/When.js";

interface WorkerListProps {
  workers: WorkerInfo[];
  onRetire?: (worker: WorkerInfo) => void;
  compact?: boolean;
}

/** Worker nodes with their state and load; optionally a Retire button each. */
export function WorkerList({ workers, onRetire, compact }: WorkerListProps) {
  if (!workers.length) return <p className="muted">No worker is connected.</p>;
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="worker-list">
        <thead>
          <tr>
            <th>Name</th>
            <th className="left">State</th>
            {!compact && <th className="left">Host</th>}
            {!compact && <th className="left">Labels</th>}
            <th>Threads</th>
            <th>VUs</th>
            <th>CPU</th>
            {!compact && <th>Memory</th>}
            {!compact && <th>Loop delay</th>}
            {!compact && <th>Last seen</th>}
            {onRetire && <th />}
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr key={w.id} data-worker={w.name}>
              <td>
                {w.name} {w.local && <span className="badge">local</span>}
              </td>
              <td className="left">
                <span className={`badge state-${w.state}`}>{w.state}</span>
                {w.saturated && (
                  <span className="badge state-lost" title="CPU or event-loop delay over the limit">
                    saturated
                  </span>
                )}
                {w.aggregator && (
                  <span className="badge" title={`Statistics go through aggregator ${w.aggregator}`}>
                    via {w.aggregator}
                  </span>
                )}
              </td>
              {!compact && <td className="left">{w.host}</td>}
              {!compact && (
                <td className="left" data-testid="worker-labels">
                  {Object.entries(w.labels ?? {}).map(([key, value]) => (
                    <span key={key} className="badge label-chip">
                      {key}={value}
                    </span>
                  ))}
                </td>
              )}
              <td>{w.threads}</td>
              <td>{formatCount(w.vus)}</td>
              <td>{Math.round(w.cpu)} %</td>
              {!compact && <td>{Math.round(w.memoryMb)} MiB</td>}
              {!compact && <td>{w.eventLoopDelayMs.toFixed(0)} ms</td>}
              {!compact && (
                <td>
                  <When iso={w.lastSeenAt} />
                </td>
              )}
              {onRetire && (
                <td>
                  <button
                    type="button"
                    className="small"
                    disabled={w.state === "running"}
                    onClick={() => onRetire(w)}
                  >
                    Retire
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
