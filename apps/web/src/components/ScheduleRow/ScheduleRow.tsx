import type { ScheduleView } from "@volley/protocol";
import { useState } from "react";
import { Link } from "react-router-dom";
import { api, errorText } from "../../api/client.js";
import { When } from "../When/When.js";

interface ScheduleRowProps {
  schedule: ScheduleView;
  canEdit: boolean;
  onChanged: (text: string, tone?: "good" | "bad") => void;
}

/** One schedule: its cron, runs, next and last firing; pause or resume, edit the cron and limits, delete. */
export function ScheduleRow({ schedule, canEdit, onChanged }: ScheduleRowProps) {
  const [editing, setEditing] = useState(false);
  const [cron, setCron] = useState(schedule.cron);
  const [maxRegression, setMaxRegression] = useState(schedule.maxRegression ?? "");
  const patch = async (body: Record<string, unknown>, text: string) => {
    try {
      await api(`/api/schedules/${schedule.id}`, { method: "PATCH", body });
      setEditing(false);
      onChanged(text);
    } catch (error) {
      onChanged(errorText(error), "bad");
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete the schedule ${schedule.name}?`)) return;
    try {
      await api(`/api/schedules/${schedule.id}`, { method: "DELETE" });
      onChanged(`Schedule ${schedule.name} deleted.`);
    } catch (error) {
      onChanged(errorText(error), "bad");
    }
  };
  return (
    <tr data-schedule={schedule.name}>
      <td className="left">
        {schedule.name}
        {!schedule.enabled && <span className="badge">paused</span>}
      </td>
      <td className="left">
        {editing ? (
          <input
            aria-label={`Cron of ${schedule.name}`}
            value={cron}
            onChange={(e) => setCron(e.target.value)}
          />
        ) : (
          <code>{schedule.cron}</code>
        )}{" "}
        <span className="muted">{schedule.timezone}</span>
      </td>
      <td className="left">{schedule.scenarioName}</td>
      <td className="left">{schedule.nextRunAt ? <When iso={schedule.nextRunAt} /> : "–"}</td>
      <td className="left">
        {schedule.lastRunId ? (
          <Link to={`/runs/${schedule.lastRunId}`}>{<When iso={schedule.lastFiredAt} />}</Link>
        ) : (
          "never"
        )}
        {schedule.lastError && (
          <div className="field-error" title={schedule.lastError}>
            {schedule.lastError}
          </div>
        )}
      </td>
      <td className="left">
        {schedule.baseline ?? "none"}
        {editing ? (
          <input
            aria-label={`Max regression of ${schedule.name}`}
            value={maxRegression}
            placeholder="p95=10%"
            onChange={(e) => setMaxRegression(e.target.value)}
          />
        ) : (
          schedule.maxRegression && <span className="muted"> ({schedule.maxRegression})</span>
        )}
      </td>
      <td className="left nowrap">
        {canEdit &&
          (editing ? (
            <button
              type="button"
              className="small"
              onClick={() =>
                patch(
                  { cron, ...(schedule.baseline ? { maxRegression: maxRegression.trim() || null } : {}) },
                  `Schedule ${schedule.name} saved.`,
                )
              }
            >
              Save
            </button>
          ) : (
            <>
              <button type="button" className="small" onClick={() => setEditing(true)}>
                Edit
              </button>{" "}
              <button
                type="button"
                className="small"
                onClick={() =>
                  patch(
                    { enabled: !schedule.enabled },
                    `Schedule ${schedule.name} ${schedule.enabled ? "paused" : "resumed"}.`,
                  )
                }
              >
                {schedule.enabled ? "Pause" : "Resume"}
              </button>{" "}
              <button type="button" className="small" onClick={remove}>
                Delete
              </button>
            </>
          ))}
      </td>
    </tr>
  );
}
