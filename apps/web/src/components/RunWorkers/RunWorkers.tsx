import type { RunWorkerInfo, WorkerInfo } from "@volley/protocol";
import { useRef } from "react";
import { formatCount, formatPercent } from "../../format/format.js";

interface RunWorkersProps {
  workers: RunWorkerInfo[];
  /** Live state of the worker nodes while the run is active. */
  live?: WorkerInfo[];
}

/**
 * The workers of a run: their part, their share of requests and how hard they worked. VUs read
 * "active of max" while the run goes (max: the worker's planned share, maxVus under an arrival
 * rate, or the most it ran once the load was raised past it), "max" after; CPU reads "now · peak so far" while it goes, the peak after.
 */
export function RunWorkers({ workers, live }: RunWorkersProps) {
  // Heartbeats give CPU now; the run's stored peak is only refreshed when the run ends.
  const peaks = useRef(new Map<string, number>());
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="run-workers">
        <thead>
          <tr>
            <th>Worker</th>
            <th className="left">Host</th>
            <th>Threads</th>
            <th>{live ? "VUs (active of max)" : "VUs (max)"}</th>
            <th>Requests</th>
            <th>Share</th>
            <th>{live ? "CPU (now · peak)" : "Peak CPU"}</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => {
            const node = live?.find((l) => l.id === w.workerId);
            // A node the registry has lost is lost for the run too, before the run's rows say so.
            const status = node?.state === "lost" ? "lost" : w.status;
            const peak = Math.max(w.peakCpu, peaks.current.get(w.workerId) ?? 0, node?.cpu ?? 0);
            peaks.current.set(w.workerId, peak);
            return (
              <tr key={w.workerId}>
                <td>{w.name}</td>
                <td className="left">{w.host}</td>
                <td>{w.threads}</td>
                <td>{node ? `${formatCount(node.vus)} of ${formatCount(w.vus)}` : formatCount(w.vus)}</td>
                <td>{formatCount(w.requests)}</td>
                <td>{formatPercent(w.share, 1)}</td>
                <td className={peak > 90 ? "bad" : undefined}>
                  {node ? `${Math.round(node.cpu)} % · ${Math.round(peak)} %` : `${Math.round(peak)} %`}
                </td>
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
