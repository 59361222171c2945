import {
  ACTIVE_RUN_STATUSES,
  MEASURE_COLOURS,
  type MetricPoint,
  maxOf,
  onRunSeconds,
  PERCENTILE_COLOURS,
  parseThreshold,
  type RunDetail,
  type RunSummary,
  type TimeseriesPoint,
  type WorkerInfo,
} from "@volley/protocol";
import { useCallback, useMemo, useState } from "react";
import { formatMs, formatPercent, formatRate, formatSeconds } from "../../format/format.js";
import { trustNow } from "../../live/live-trust.js";
import { CapacityView } from "../CapacityView/CapacityView.js";
import { Chart } from "../Chart/Chart.js";
import { ChartScope } from "../ChartScope/ChartScope.js";
import { Checks } from "../Checks/Checks.js";
import { ErrorList } from "../ErrorList/ErrorList.js";
import { LatencyDistribution } from "../LatencyDistribution/LatencyDistribution.js";
import { LatencyHeatmap } from "../LatencyHeatmap/LatencyHeatmap.js";
import { LoadControl, loadMarkers } from "../LoadControl/LoadControl.js";
import { Messages } from "../Messages/Messages.js";
import { Metrics } from "../Metrics/Metrics.js";
import { RebalanceButton } from "../RebalanceButton/RebalanceButton.js";
import { RequestPhases } from "../RequestPhases/RequestPhases.js";
import { RequestTable } from "../RequestTable/RequestTable.js";
import { RunWorkers } from "../RunWorkers/RunWorkers.js";
import { SlowestRequests } from "../SlowestRequests/SlowestRequests.js";
import { StatCard } from "../StatCard/StatCard.js";
import { StatusCodes } from "../StatusCodes/StatusCodes.js";
import { Streams } from "../Streams/Streams.js";
import { Thresholds } from "../Thresholds/Thresholds.js";
import { traceTemplateOf } from "../TraceLink/TraceLink.js";
import { TrustNotice } from "../TrustNotice/TrustNotice.js";
import { type SecondsWindow, WindowSummary } from "../WindowSummary/WindowSummary.js";

interface RunViewProps {
  run: RunDetail;
  summary: RunSummary;
  points: TimeseriesPoint[];
  requestPoints: Record<string, TimeseriesPoint[]>;
  /** Each of `scenarios:` as its own series, for the charts' scenario filter. */
  scenarioPoints?: Record<string, TimeseriesPoint[]>;
  /** A script's custom metrics, each second they were recorded. */
  metricPoints?: Record<string, MetricPoint[]>;
  live: boolean;
  workers: WorkerInfo[];
  compact?: boolean;
}

const ACTIVE = new Set<string>(ACTIVE_RUN_STATUSES);

/** One run: big numbers, charts, tables. Live while the run is active, the report after. */
export function RunView({
  run,
  summary,
  points,
  requestPoints,
  scenarioPoints = {},
  metricPoints = {},
  live,
  workers,
  compact,
}: RunViewProps) {
  const t = summary.total;
  const last = points.at(-1);
  const scenarioNames = (summary.scenarios ?? []).map((s) => s.name);
  const [chosen, setScope] = useState("");
  const [range, setRange] = useState<SecondsWindow | null>(null);
  const select = useCallback((from: number, to: number) => setRange({ from, to }), []);
  const scope = scenarioNames.includes(chosen) ? chosen : "";
  const charted = useMemo(
    () => (scope ? onRunSeconds(points, scenarioPoints[scope] ?? []) : points),
    [scope, points, scenarioPoints],
  );
  const elapsed =
    ACTIVE.has(run.status) && run.startedAt
      ? (Date.now() - Date.parse(run.startedAt)) / 1000
      : summary.durationS;
  const remaining = ACTIVE.has(run.status) ? Math.max(0, run.plannedDurationS - elapsed) : 0;
  const errorRate = t.requests ? t.failures / t.requests : 0;
  const x = useMemo(() => charted.map((p) => p.t), [charted]);
  const throughput = useMemo(
    () => [
      { label: "requests/s", color: MEASURE_COLOURS.throughput, values: charted.map((p) => p.rps) },
      { label: "errors/s", color: MEASURE_COLOURS.errors, values: charted.map((p) => p.errorsPerSec) },
    ],
    [charted],
  );
  const latency = useMemo(
    () => [
      { label: "p50", color: PERCENTILE_COLOURS.p50, values: charted.map((p) => p.p50) },
      { label: "p95", color: PERCENTILE_COLOURS.p95, values: charted.map((p) => p.p95) },
      { label: "p99", color: PERCENTILE_COLOURS.p99, values: charted.map((p) => p.p99) },
    ],
    [charted],
  );
  const vus = useMemo(
    () => [{ label: "VUs", color: MEASURE_COLOURS.vus, values: points.map((p) => p.vus) }],
    [points],
  );
  const now = useMemo(() => {
    const current: Record<string, TimeseriesPoint | undefined> = { "": last };
    for (const [name, series] of Object.entries(requestPoints)) current[name] = series.at(-1);
    return current;
  }, [last, requestPoints]);
  const markers = useMemo(() => loadMarkers(run.loadChanges ?? []), [run.loadChanges]);
  const runWorkerIds = new Set(run.workers.map((w) => w.workerId));
  // Live, VUs are what the run's workers say now (heartbeats), as in the workers table below;
  // the merged seconds trail them by a second or two.
  const runNodes = workers.filter((w) => runWorkerIds.has(w.id));
  const activeVusNow = live && runNodes.length ? runNodes.reduce((sum, w) => sum + w.vus, 0) : null;
  const saturatedNow = live ? workers.filter((w) => runWorkerIds.has(w.id) && w.saturated) : [];
  const trust = useMemo(() => trustNow(run, summary, Boolean(live)), [live, run, summary]);

  return (
    <div className="run-view">
      <TrustNotice trust={trust} liveSaturated={saturatedNow} />
      {run.error && <div className="callout bad">{run.error}</div>}
      <div className="stat-grid">
        <StatCard
          testId="stat-rps"
          label={live ? "RPS now" : "Throughput"}
          value={formatRate(live ? (last?.rps ?? 0) : t.rps)}
        />
        <StatCard testId="stat-requests" label="Requests" value={t.requests.toLocaleString("en-US")} />
        <StatCard
          testId="stat-errors"
          label="Errors"
          value={formatPercent(errorRate)}
          tone={errorRate > 0.01 ? "bad" : "good"}
        />
        <StatCard
          testId="stat-vus"
          label="VUs"
          value={String(
            live
              ? (activeVusNow ?? last?.vus ?? 0)
              : maxOf(
                  points.map((p) => p.vus),
                  0,
                ),
          )}
          hint={live ? "active now" : "peak active"}
        />
        <StatCard testId="stat-p95" label="p95" value={formatMs(t.latencyMs.p95)} />
        {t.iterations !== undefined && (
          <StatCard
            testId="stat-iterations"
            label="Iterations"
            value={t.iterations.toLocaleString("en-US")}
            hint={t.iterations > 0 && t.iterationMs ? `p95 ${formatMs(t.iterationMs.p95)} each` : undefined}
          />
        )}
        {(t.skippedIterations ?? 0) > 0 && (
          <StatCard
            testId="stat-skipped"
            label="Skipped iterations"
            value={(t.skippedIterations ?? 0).toLocaleString("en-US")}
            hint="a unique feeder ran out"
            tone="bad"
          />
        )}
        {t.dropped > 0 && (
          <StatCard
            testId="stat-dropped"
            label="Dropped iterations"
            value={t.dropped.toLocaleString("en-US")}
            hint="no free VU at their start"
            tone="bad"
          />
        )}
        <StatCard
          testId="stat-elapsed"
          label={live ? "Elapsed / left" : "Duration"}
          value={
            live
              ? `${formatSeconds(elapsed)} / ${formatSeconds(remaining)}`
              : formatSeconds(summary.durationS)
          }
        />
      </div>
      {live && run.status === "running" && !compact && (
        <>
          <RebalanceButton run={run} workers={workers} />
          <LoadControl run={run} elapsedS={elapsed} />
        </>
      )}
      {summary.capacity && !compact && (
        <CapacityView capacity={summary.capacity} p95LimitMs={sloP95Ms(run)} />
      )}
      {!live && run.thresholds.length > 0 && (
        <section>
          <h2>
            Thresholds{" "}
            <span className={`badge ${run.passed ? "state-ready" : "state-lost"}`} data-testid="verdict">
              {run.passed ? "passed" : "failed"}
            </span>
          </h2>
          <Thresholds results={run.thresholds} />
        </section>
      )}
      {scenarioNames.length > 1 && <ChartScope scenarios={scenarioNames} value={scope} onChange={setScope} />}
      <div className={compact ? "chart-grid compact" : "chart-grid"}>
        <Chart
          title={`Throughput and errors${scopeLabel(scope)}`}
          unit="per second"
          x={x}
          series={throughput}
          onSelect={select}
          markers={markers}
        />
        <Chart
          title={`Latency${scopeLabel(scope)}`}
          unit="ms"
          x={x}
          series={latency}
          onSelect={select}
          markers={markers}
        />
        {!compact && (
          <Chart
            title={scope ? "Virtual users · whole run" : "Virtual users"}
            unit="VUs"
            whole
            x={x}
            series={vus}
            onSelect={select}
            markers={markers}
          />
        )}
      </div>
      {!live && !compact && <LatencyHeatmap runId={run.id} points={points} onSelect={select} />}
      {!compact && <WindowSummary run={run} window={range} onChange={setRange} />}
      <section>
        <h2>Requests</h2>
        <RequestTable summary={summary} now={live ? now : undefined} />
      </section>
      {!compact && summary.requests.some((r) => r.timings) && (
        <section data-testid="phases-section">
          <h2>Where the time went</h2>
          <p className="muted">
            Connecting (0 on a reused connection), TLS, and waiting for the first byte once sent: a slow
            server shows in Waiting, slow connections in Connect and TLS.
          </p>
          <RequestPhases requests={summary.requests} />
        </section>
      )}
      {!live && !compact && <LatencyDistribution runId={run.id} summary={summary} />}
      {summary.requests.some((r) => r.slowest?.length) && (
        <section data-testid="slowest-section">
          <h2>Slowest requests</h2>
          <p className="muted">
            Each request name's slowest, with its trace id. Drag across a chart for a range's own.
          </p>
          <SlowestRequests
            requests={summary.requests}
            startedAt={run.startedAt}
            template={traceTemplateOf(run)}
          />
        </section>
      )}
      {summary.checks && summary.checks.length > 0 && (
        <section>
          <h2>Checks</h2>
          <Checks checks={summary.checks} />
        </section>
      )}
      {summary.metrics && Object.keys(summary.metrics).length > 0 && (
        <section data-testid="metrics-section">
          <h2>Metrics</h2>
          <Metrics metrics={summary.metrics} points={metricPoints} onSelect={compact ? undefined : select} />
        </section>
      )}
      {summary.requests.some((r) => r.stream) && (
        <section>
          <h2>Streams</h2>
          <Streams requests={summary.requests} />
        </section>
      )}
      {summary.requests.some((r) => r.ws) && (
        <section>
          <h2>Messages</h2>
          <Messages requests={summary.requests} />
        </section>
      )}
      {!compact && (
        <div className="two-columns">
          <section>
            <h2>Status codes</h2>
            <StatusCodes codes={summary.statusCodes} />
          </section>
          <section>
            <h2>Errors</h2>
            <ErrorList errors={summary.errors} traceTemplate={traceTemplateOf(run)} />
          </section>
        </div>
      )}
      {!compact && (
        <section>
          <h2>Workers in this run</h2>
          <RunWorkers workers={run.workers} live={live ? workers : undefined} />
        </section>
      )}
    </div>
  );
}

/** The p95 limit of a capacity search's SLO, in ms, when it has one. */
function sloP95Ms(run: RunDetail): number | null {
  const slo = (run.scenario.load as { slo?: { p95?: string } } | undefined)?.slo;
  if (!slo?.p95) return null;
  try {
    return parseThreshold("p95", slo.p95).value;
  } catch {
    return null;
  }
}

function scopeLabel(scope: string): string {
  return scope ? ` · ${scope}` : "";
}
