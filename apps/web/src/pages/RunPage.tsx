import { labelsMatch, statusLabel } from "@volley/protocol";
import { useState } from "react";
import { Link, useParams } from "react-router-dom";
import { api } from "../api/client.js";
import { RunScripts } from "../components/RunScripts/RunScripts.js";
import { RunView } from "../components/RunView/RunView.js";
import { When } from "../components/When/When.js";
import { useRunData } from "../hooks/use-run-data.js";
import { useLive } from "../live/live-context.js";
import { trustNow } from "../live/live-trust.js";

/** /runs/:id — one run, live while it runs, the full report after. */
export function RunPage() {
  const { id = "" } = useParams();
  const data = useRunData(id);
  const feed = useLive();
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);
  if (data.error) {
    return (
      <div className="callout bad" role="alert">
        {data.error.message}. <Link to="/runs">Back to the history</Link>
      </div>
    );
  }
  if (!data.run || !data.summary) return <p className="muted">Loading…</p>;
  const run = data.run;
  const trust = trustNow(run, data.summary, Boolean(data.live));
  const queued = run.status === "queued";
  const position = feed.queued.findIndex((q) => q.id === run.id) + 1;
  // The runs holding the workers this one waits for (runs on other workers do not hold it up).
  const selector = run.scenario.workers?.selector ?? {};
  const holders = feed.inProgress.filter((r) =>
    feed.workers.some((w) => w.runId === r.id && labelsMatch(w.labels, selector)),
  );
  const stop = async () => {
    setStopping(true);
    setStopError(null);
    try {
      await api(`/api/runs/${run.id}/stop`, { method: "POST" });
    } catch (error) {
      setStopError((error as Error).message);
      setStopping(false);
    }
  };
  return (
    <div>
      <div className="page-head">
        <div>
          <h1>{run.name}</h1>
          <p className="muted">
            <span className={`badge state-${statusLabel(run)}`} data-testid="run-status">
              {statusLabel(run)}
            </span>{" "}
            {!queued && (
              <span
                className={`badge trust-${trust.verdict}`}
                data-testid="trust-verdict"
                title={
                  trust.reasons.map((r) => r.message).join("\n") || "no saturation, loss, drops or short run"
                }
              >
                {trust.verdict}
              </span>
            )}{" "}
            {run.scenario.load?.executor ?? `${Object.keys(run.scenario.scenarios ?? {}).length} scenarios`} ·{" "}
            {run.scenario.target} · {queued ? "queued " : "started "}
            <When iso={queued ? run.createdAt : run.startedAt} />
            {run.startedBy && <span data-testid="started-by">{` by ${run.startedBy}`}</span>}
            {run.finishedAt && (
              <>
                {" · ended "}
                <When iso={run.finishedAt} />
              </>
            )}
            {run.stopReason === "capacity" && " · ended at its breaking point"}
            {run.stopReason &&
              !["user", "cancelled", "capacity"].includes(run.stopReason) &&
              ` · stopped by ${run.stopReason}`}
            {run.stoppedBy && (
              <span data-testid="stopped-by">{` · ${run.stopReason === "cancelled" ? "cancelled" : "stopped"} by ${run.stoppedBy}`}</span>
            )}
          </p>
        </div>
        <div className="actions">
          {data.live && (
            <button
              type="button"
              className="danger"
              onClick={stop}
              disabled={stopping || run.status === "stopping"}
              data-testid="stop-run"
            >
              {queued
                ? stopping
                  ? "Cancelling…"
                  : "Cancel"
                : run.status === "stopping" || stopping
                  ? "Stopping…"
                  : "Stop"}
            </button>
          )}
          {!data.live && (
            <>
              <a
                className="button"
                href={`/api/runs/${run.id}/report.json`}
                download
                data-testid="download-json"
              >
                JSON
              </a>
              <a className="button" href={`/api/runs/${run.id}/report.csv`} download>
                CSV
              </a>
              <span className="button-pair">
                <a
                  className="button"
                  href={`/api/runs/${run.id}/report.html`}
                  target="_blank"
                  rel="noopener"
                  data-testid="open-html"
                >
                  HTML
                </a>
                <a
                  className="button"
                  href={`/api/runs/${run.id}/report.html?download=1`}
                  download
                  aria-label="Download the HTML report"
                  title="Download the HTML report"
                >
                  ↓
                </a>
              </span>
              <Link className="button" to={`/new?from=${run.id}`}>
                Run again
              </Link>
            </>
          )}
        </div>
      </div>
      {stopError && <div className="callout bad">{stopError}</div>}
      {queued ? (
        <div className="callout" data-testid="queued-note">
          Queued{position > 0 ? ` (number ${position} in line)` : ""}: it starts on its workers when{" "}
          {holders.length > 0 ? (
            <>
              {holders.map((holder, index) => (
                <span key={holder.id}>
                  {index > 0 && " and "}
                  <Link to={`/runs/${holder.id}`}>{holder.name}</Link>
                </span>
              ))}
              {position > 1
                ? " and the runs queued before it for them end"
                : holders.length > 1
                  ? " end"
                  : " ends"}
            </>
          ) : (
            "the runs before it on the same workers end"
          )}
          . Cancel takes it out of line.
        </div>
      ) : (
        <RunView
          run={run}
          summary={data.summary}
          points={data.points}
          requestPoints={data.requestPoints}
          metricPoints={data.metricPoints}
          scenarioPoints={data.scenarioPoints}
          live={data.live}
          workers={feed.workers}
        />
      )}
      {usesScripts(run.scenario) && <RunScripts runId={run.id} />}
    </div>
  );
}

/** Whether the scenario (or one of its scenarios) runs a script. */
function usesScripts(scenario: { script?: unknown; scenarios?: unknown }): boolean {
  if (typeof scenario.script === "string") return true;
  const parts = scenario.scenarios;
  return (
    !!parts && typeof parts === "object" && Object.values(parts).some((p) => typeof p?.script === "string")
  );
}
