import { parseDuration, type RunDetail, type RunSummary } from "@volley/protocol";
import { useApi } from "../../api/use-api.js";
import { formatMs, formatPercent, formatRate } from "../../format/format.js";
import { RequestTable } from "../RequestTable/RequestTable.js";
import { SlowestRequests } from "../SlowestRequests/SlowestRequests.js";
import { traceTemplateOf } from "../TraceLink/TraceLink.js";

export interface SecondsWindow {
  from: number;
  to: number;
}

interface WindowSummaryProps {
  run: RunDetail;
  window: SecondsWindow | null;
  onChange: (window: SecondsWindow | null) => void;
}

/**
 * The exact summary of a range of seconds (dragged across a chart, or one ramp stage chosen):
 * merged from each second's histograms by the master, so its percentiles are exact.
 */
export function WindowSummary({ run, window, onChange }: WindowSummaryProps) {
  const stages = stageWindows(run);
  const summary = useApi<RunSummary>(
    window ? `/api/runs/${run.id}/summary?from=${window.from}&to=${window.to}` : null,
  );
  return (
    <section className="window-summary" data-testid="window-summary">
      <div className="window-head">
        <h2>{window ? `Seconds ${window.from}–${window.to}` : "A range of the run"}</h2>
        <div className="actions">
          {stages.map((stage, i) => (
            <button
              type="button"
              className="small"
              key={`${stage.from}-${stage.to}`}
              onClick={() => onChange(stage)}
              aria-pressed={window?.from === stage.from && window?.to === stage.to}
            >
              Stage {i + 1} ({stage.from}–{stage.to} s)
            </button>
          ))}
          {window && (
            <button type="button" className="small" onClick={() => onChange(null)} data-testid="window-clear">
              Clear
            </button>
          )}
        </div>
      </div>
      {!window && <p className="muted">Drag across a chart to see the exact figures of those seconds.</p>}
      {window && summary.error && <div className="callout bad">{summary.error.message}</div>}
      {window && summary.data && (
        <>
          <p className="muted" data-testid="window-totals">
            {summary.data.total.requests.toLocaleString("en-US")} requests ·{" "}
            {formatRate(summary.data.total.rps)} · errors{" "}
            {formatPercent(
              summary.data.total.requests ? summary.data.total.failures / summary.data.total.requests : 0,
            )}{" "}
            · p95 {formatMs(summary.data.total.latencyMs.p95)} · p99{" "}
            {formatMs(summary.data.total.latencyMs.p99)}
          </p>
          <RequestTable summary={summary.data} />
          <SlowestRequests
            requests={summary.data.requests}
            startedAt={run.startedAt}
            template={traceTemplateOf(run)}
            testId="window-slowest"
          />
        </>
      )}
    </section>
  );
}

/** The seconds of each stage of a ramping executor (none for other loads). */
function stageWindows(run: RunDetail): SecondsWindow[] {
  const stages = (run.scenario.load as { stages?: Array<{ duration: string }> } | undefined)?.stages;
  if (!Array.isArray(stages)) return [];
  const out: SecondsWindow[] = [];
  let at = 0;
  for (const stage of stages) {
    const seconds = Math.round((parseDuration(String(stage.duration)) ?? 0) / 1000);
    if (seconds > 0) out.push({ from: at, to: at + seconds });
    at += seconds;
  }
  return out;
}
