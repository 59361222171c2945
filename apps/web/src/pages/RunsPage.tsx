import { RUN_STATUSES, type RunPage as RunPageData, statusLabel } from "@volley/protocol";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { useApi } from "../api/use-api.js";
import { When } from "../components/When/When.js";
import { formatCount, formatMs, formatPercent, formatRate, formatSeconds } from "../format/format.js";
import { useLive } from "../live/live-context.js";

const PAGE_SIZE = 20;

/** /runs — history, newest first: filter by name and status, page through, pick two to compare. */
export function RunsPage() {
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [query] = useSearchParams();
  const [status, setStatus] = useState(query.get("status") ?? "");
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (name) params.set("name", name);
  if (status) params.set("status", status);
  if (cursors.length) params.set("cursor", cursors[cursors.length - 1]);
  const page = useApi<RunPageData>(`/api/runs?${params}`);
  // A run queued, started or ended elsewhere shows here at once.
  const { lastStatus } = useLive();
  const { reload } = page;
  useEffect(() => {
    if (lastStatus) reload();
  }, [lastStatus, reload]);
  const toggle = (id: string) =>
    setSelected((current) =>
      current.includes(id) ? current.filter((s) => s !== id) : [...current, id].slice(-2),
    );
  return (
    <div>
      <div className="page-head">
        <h1>History</h1>
        <div className="actions">
          {selected.length === 2 && (
            <button
              type="button"
              onClick={() => setSelected([selected[1], selected[0]])}
              data-testid="swap-selected"
            >
              Swap A and B
            </button>
          )}
          <button
            type="button"
            className="primary"
            disabled={selected.length !== 2}
            onClick={() => navigate(`/compare?a=${selected[0]}&b=${selected[1]}`)}
            data-testid="compare-selected"
          >
            Compare {selected.length}/2
          </button>
        </div>
      </div>
      <p className="field-note" data-testid="compare-help">
        Tick two runs to compare: the first is A (the baseline), the second B. A third tick replaces A.
      </p>
      <div className="filters">
        <input
          type="search"
          placeholder="Filter by name"
          aria-label="Filter by name"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setCursors([]);
          }}
        />
        <select
          aria-label="Filter by status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setCursors([]);
          }}
        >
          <option value="">Any status</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {page.error && <div className="callout bad">{page.error.message}</div>}
      <div className="table-scroll">
        <table className="data-table" data-testid="history">
          <thead>
            <tr>
              <th />
              <th className="left">Name</th>
              <th className="left">Status</th>
              <th className="left">Started</th>
              <th>Duration</th>
              <th className="left">Executor</th>
              <th>Requests</th>
              <th>RPS</th>
              <th>p95</th>
              <th>Errors</th>
              <th>Thresholds</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.runs.map((run) => (
              <tr key={run.id} data-run={run.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${run.name} to compare`}
                    checked={selected.includes(run.id)}
                    onChange={() => toggle(run.id)}
                  />
                  {selected.includes(run.id) && (
                    <span className="compare-role" data-testid="compare-role">
                      {selected[0] === run.id ? "A" : "B"}
                    </span>
                  )}
                </td>
                <td className="left">
                  <Link to={`/runs/${run.id}`}>{run.name}</Link>
                </td>
                <td className="left">
                  <span className={`badge state-${statusLabel(run)}`}>{statusLabel(run)}</span>
                </td>
                <td className="left">
                  <When iso={run.startedAt ?? run.createdAt} />
                </td>
                <td>{formatSeconds(run.durationS)}</td>
                <td className="left">{run.executor}</td>
                <td>{formatCount(run.requests)}</td>
                <td>{formatRate(run.rps, "")}</td>
                <td>{formatMs(run.p95)}</td>
                <td className={run.errorRate > 0.01 ? "bad" : undefined}>{formatPercent(run.errorRate)}</td>
                <td>
                  {run.passed === null ? (
                    "–"
                  ) : (
                    <span className={`badge ${run.passed ? "state-ready" : "state-lost"}`}>
                      {run.passed ? "pass" : "fail"}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.data && page.data.runs.length === 0 && <p className="muted">No runs match.</p>}
      <div className="pager">
        <button type="button" disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <button
          type="button"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data?.nextCursor as string])}
        >
          Older →
        </button>
      </div>
    </div>
  );
}
