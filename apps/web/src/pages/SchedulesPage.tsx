import type { RunPage, ScheduleView } from "@volley/protocol";
import { type FormEvent, useState } from "react";
import { Link } from "react-router-dom";
import { api, errorText } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { ScheduleRow } from "../components/ScheduleRow/ScheduleRow.js";
import { useSession } from "../session/session-context.js";

/** /schedules — saved tests on cron expressions: when each fires next, its last run, edit, pause, delete. */
export function SchedulesPage() {
  const session = useSession();
  const schedules = useApi<ScheduleView[]>("/api/schedules");
  const runs = useApi<RunPage>("/api/runs?limit=100");
  const [message, setMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const [name, setName] = useState("");
  const [cron, setCron] = useState("0 3 * * *");
  const [timezone, setTimezone] = useState("UTC");
  const [from, setFrom] = useState("");
  const [baseline, setBaseline] = useState("");
  const [maxRegression, setMaxRegression] = useState("");
  const canEdit = session.role !== "viewer";
  const names = [...new Set((runs.data?.runs ?? []).map((r) => r.name))].sort();
  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api("/api/schedules", {
        method: "POST",
        body: {
          name,
          cron,
          timezone,
          scenario: from,
          ...(baseline ? { baseline } : {}),
          ...(maxRegression.trim() ? { maxRegression: maxRegression.trim() } : {}),
        },
      });
      setMessage({ tone: "good", text: `Schedule ${name} made.` });
      setName("");
      schedules.reload();
    } catch (error) {
      setMessage({ tone: "bad", text: errorText(error) });
    }
  };
  return (
    <section>
      <h1>Schedules</h1>
      <p className="muted">
        Saved tests that run on a cron expression (5 fields, or 6 with seconds). A scheduled run waits in the
        queue while its workers are busy; with a baseline, one worse than the limits fires the webhook{" "}
        <code>run.regressed</code>.
      </p>
      {message && (
        <div className={`callout ${message.tone}`} role="status">
          {message.text}
        </div>
      )}
      {schedules.error && <div className="callout bad">{schedules.error.message}</div>}
      <div className="panel table-scroll">
        <table className="data-table" data-testid="schedule-table">
          <thead>
            <tr>
              <th className="left">Name</th>
              <th className="left">Cron</th>
              <th className="left">Runs</th>
              <th className="left">Next</th>
              <th className="left">Last</th>
              <th className="left">Baseline</th>
              <th className="left" />
            </tr>
          </thead>
          <tbody>
            {(schedules.data ?? []).map((schedule) => (
              <ScheduleRow
                key={schedule.id}
                schedule={schedule}
                canEdit={canEdit}
                onChanged={(text, tone = "good") => {
                  setMessage({ tone, text });
                  schedules.reload();
                }}
              />
            ))}
            {!schedules.loading && (schedules.data ?? []).length === 0 && (
              <tr>
                <td colSpan={7} className="left muted">
                  No schedule yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {canEdit && (
        <form className="panel" onSubmit={create} data-testid="schedule-form">
          <h2>New schedule</h2>
          <p className="muted">
            Each firing runs the newest run of the chosen name again: its scenario, files and scripts (start
            it once from <Link to="/new">New run</Link>). <code>POST /api/schedules</code> also takes a whole
            scenario.
          </p>
          <div className="filters">
            <label>
              Name
              <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
            </label>
            <label>
              Runs of
              <select value={from} required onChange={(e) => setFrom(e.target.value)}>
                <option value="">choose…</option>
                {names.map((n) => (
                  <option key={n}>{n}</option>
                ))}
              </select>
            </label>
            <label>
              Cron
              <input value={cron} required onChange={(e) => setCron(e.target.value)} />
            </label>
            <label>
              Time zone
              <input value={timezone} onChange={(e) => setTimezone(e.target.value)} />
            </label>
            <label>
              Baseline
              <select value={baseline} onChange={(e) => setBaseline(e.target.value)}>
                <option value="">none</option>
                <option value="last">the last run</option>
                <option value="pinned">the pinned run</option>
              </select>
            </label>
            <label>
              Max regression
              <input
                value={maxRegression}
                placeholder="p95=10%,rps=5%"
                onChange={(e) => setMaxRegression(e.target.value)}
              />
            </label>
            <button type="submit" className="primary">
              Add schedule
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
