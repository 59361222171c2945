import type { RunPage as RunPageData } from "@volley/protocol";
import { statusLabel } from "@volley/protocol";
import { Link } from "react-router-dom";
import { useApi } from "../api/use-api.js";
import { RunView } from "../components/RunView/RunView.js";
import { WorkerList } from "../components/WorkerList/WorkerList.js";
import { useRunData } from "../hooks/use-run-data.js";
import { useLive } from "../live/live-context.js";

/** / — the run started last, live (or the last one that ran), the others in progress, and the workers at a glance. */
export function OverviewPage() {
  const feed = useLive();
  const latest = useApi<RunPageData>("/api/runs?limit=20");
  // The run started last while this page is open (live, or just ended), else the newest one that ran.
  const lastRan = latest.data?.runs.find((r) => r.status !== "queued" && r.stopReason !== "cancelled");
  const id = feed.current?.id ?? lastRan?.id ?? null;
  const data = useRunData(id);
  // Runs on other workers at the same time: each a link to its own live page.
  const others = feed.inProgress.filter((r) => r.id !== id);
  const counts = feed.workers.reduce<Record<string, number>>((acc, w) => {
    acc[w.state] = (acc[w.state] ?? 0) + 1;
    return acc;
  }, {});
  return (
    <div>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p className="muted">
            {feed.workers.length} worker{feed.workers.length === 1 ? "" : "s"}:{" "}
            {Object.entries(counts)
              .map(([state, count]) => `${count} ${state}`)
              .join(", ") || "none connected"}
          </p>
        </div>
        <div className="actions">
          <Link className="button primary" to="/new">
            New run
          </Link>
        </div>
      </div>
      {id && data.run && data.summary ? (
        <section>
          <h2>
            {data.live ? "Active run: " : "Last run: "}
            <Link to={`/runs/${data.run.id}`}>{data.run.name}</Link>{" "}
            <span className={`badge state-${statusLabel(data.run)}`}>{statusLabel(data.run)}</span>
          </h2>
          {others.length > 0 && (
            <p className="muted" data-testid="also-in-progress">
              Also in progress on other workers:{" "}
              {others.map((run, index) => (
                <span key={run.id}>
                  {index > 0 && ", "}
                  <Link to={`/runs/${run.id}`}>{run.name}</Link>
                </span>
              ))}
            </p>
          )}
          <RunView
            run={data.run}
            summary={data.summary}
            points={data.points}
            requestPoints={data.requestPoints}
            metricPoints={data.metricPoints}
            scenarioPoints={data.scenarioPoints}
            live={data.live}
            workers={feed.workers}
            compact
          />
        </section>
      ) : (
        <div className="empty">
          <p>No run yet.</p>
          <Link className="button primary" to="/new">
            Start the first run
          </Link>
        </div>
      )}
      <section>
        <h2>
          Workers{" "}
          <Link to="/workers" className="small-link">
            manage
          </Link>
        </h2>
        <WorkerList workers={feed.workers} compact />
      </section>
    </div>
  );
}
