import type { RunWorkerInfo, WorkerInfo } from "@volley/protocol";
import { formatCount, formatPercent } from "../../format/format.js";

interface RunWorkersProps {
  workers: RunWorkerInfo[];
  /** Live state of the worker nodes while the run is active. */
  live?: WorkerInfo[];
}

/** The workers of a run: their part, their share of requests and how hard they worked. */
export function RunWorkers({ workers, live }: RunWorkersProps) {
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="run-workers">
        <thead>
          <tr>
            <th>Worker</th>
            <th className="left">Host</th>
            <th>Threads</th>
            <th>VUs</th>
            <th>Requests</th>
            <th>Share</th>
            <th>Peak CPU</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => {
            const node = live?.find((l) => l.id === w.workerId);
            // A node the registry has lost is lost for the run too, before the run's rows say so.
            const status = node?.state === "lost" ? "lost" : w.status;
            return (
              <tr key={w.workerId}>
                <td>{w.name}</td>
                <td className="left">{w.host}</td>
                <td>{w.threads}</td>
                <td>{node ? formatCount(node.vus) : formatCount(w.vus)}</td>
                <td>{formatCount(w.requests)}</td>
                <td>{formatPercent(w.share, 1)}</td>
                <td className={w.peakCpu > 90 ? "bad" : undefined}>{Math.round(w.peakCpu)} %</td>
                <td>
                  <span className={`badge state-${status}`}>{status}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
