import type { AuditEntryView } from "@volley/protocol";
import { useState } from "react";
import { useApi } from "../api/use-api.js";
import { When } from "../components/When/When.js";

const PAGE = 100;

/** /audit — who changed what (admins): runs, users, tokens, workers; newest first. */
export function AuditPage() {
  const [actor, setActor] = useState("");
  const [action, setAction] = useState("");
  const [before, setBefore] = useState<number[]>([]);
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (actor.trim()) query.set("actor", actor.trim());
  if (action.trim()) query.set("action", action.trim());
  const cursor = before.at(-1);
  if (cursor !== undefined) query.set("before", String(cursor));
  const entries = useApi<AuditEntryView[]>(`/api/audit?${query}`);
  const rows = entries.data ?? [];
  return (
    <section>
      <h1>Audit log</h1>
      <p className="muted">Every change made through the API or this dashboard, with who made it.</p>
      <div className="panel filters">
        <label>
          Actor
          <input
            value={actor}
            placeholder="any"
            onChange={(e) => {
              setActor(e.target.value);
              setBefore([]);
            }}
          />
        </label>
        <label>
          Action starts with
          <input
            value={action}
            placeholder="run., user., token."
            onChange={(e) => {
              setAction(e.target.value);
              setBefore([]);
            }}
          />
        </label>
      </div>
      {entries.error && <div className="callout bad">{entries.error.message}</div>}
      <div className="panel table-scroll">
        <table className="data-table" data-testid="audit-table">
          <thead>
            <tr>
              <th className="left">When</th>
              <th className="left">Actor</th>
              <th className="left">Action</th>
              <th className="left">Target</th>
              <th className="left">Detail</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={entry.id}>
                <td className="left">
                  <When iso={entry.at} />
                </td>
                <td className="left">{entry.actor}</td>
                <td className="left">
                  <code>{entry.action}</code>
                </td>
                <td className="left wrap">{entry.target}</td>
                <td className="left wrap">{entry.detail ?? ""}</td>
              </tr>
            ))}
            {!entries.loading && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="left muted">
                  No changes recorded{actor || action ? " that match" : ""}.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div className="pager">
        <button type="button" disabled={before.length === 0} onClick={() => setBefore(before.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={rows.length < PAGE}
          onClick={() => setBefore([...before, rows[rows.length - 1].id])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
