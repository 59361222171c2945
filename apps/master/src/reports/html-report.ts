import {
  formatBytes,
  formatMs,
  formatNumber,
  formatPassRate,
  formatThresholdActual,
  GROUP_METHOD,
  LATENCY_COLUMNS,
  type LatencyDistribution,
  type LatencyHeatmap,
  LINE_COLOURS,
  MEASURE_COLOURS,
  messageKind,
  PERCENTILE_COLOURS,
  type RunDetail,
  scopedName,
  statusLabel,
  summaryLabel,
  type Timeseries,
  type TotalsSummary,
} from "@volley/protocol";
import { capacitySection } from "./capacity-report.js";
import { metricsSection } from "./metrics-section.js";
import { escapeHtml, svgLineChart } from "./svg-chart.js";
import { svgDistributionChart } from "./svg-distribution.js";
import { svgHeatmap } from "./svg-heatmap.js";
import { phasesSection, slowestSection, traceCell } from "./traces-section.js";

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7fa}
main{max-width:1360px;margin:0 auto;padding:24px}
h1{margin:0 0 4px;font-size:24px} h2{font-size:17px;margin:28px 0 8px}
.meta{color:#5b6475}.pass{color:#137333;font-weight:600}.fail{color:#c5221f;font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:10px;margin-top:16px}
.card{background:#fff;border:1px solid #e2e5ec;border-radius:8px;padding:10px 12px}
.card b{display:block;font-size:20px;white-space:nowrap}.card span{color:#5b6475;font-size:12px;text-transform:uppercase}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #e2e5ec}
.scroll{overflow-x:auto;max-width:100%}
th,td{padding:6px 8px;border-bottom:1px solid #edf0f4;text-align:right;white-space:nowrap}
th:first-child,td:first-child,th.text,td.text{text-align:left} td.wrap{white-space:normal} th{background:#f0f2f6;font-weight:600}
.chart{margin:12px 0;background:#fff;border:1px solid #e2e5ec;border-radius:8px;padding:8px}
.chart svg{width:100%;height:auto}.chart text{font-size:11px;fill:#5b6475}.chart .grid{stroke:#edf0f4}
@media (max-width:700px){.chart text{font-size:26px}}
.key{margin-left:12px;font-size:12px}.key i{display:inline-block;width:10px;height:3px;margin-right:4px;vertical-align:middle}
.warn{background:#fff4e5;border:1px solid #f5c26b;border-radius:8px;padding:8px 12px;margin:8px 0}
.trust{border:1px solid #d7dbe2;border-radius:8px;padding:8px 12px;margin:8px 0}.trust ul{margin:4px 0 0;padding-left:18px}
.trust-trusted b{color:#188038}.trust-degraded{background:#fff4e5;border-color:#f5c26b}.trust-untrusted{background:#fdecea;border-color:#f1a59c}
@media (prefers-color-scheme:dark){body{background:#12151b;color:#e5e8ee}.card,table,.chart{background:#1b1f27;border-color:#2b313c}
th{background:#222835}td,th{border-color:#2b313c}.meta,.card span{color:#9aa3b2}.trust{border-color:#2b313c}.warn,.trust-degraded{background:#3a2c12;border-color:#7a5a1c}.trust-untrusted{background:#3d1d1a;border-color:#7a2f28}
.chart .grid{stroke:#262c36}.chart text{fill:#9aa3b2}}`;

/** A self-contained HTML report: summary, thresholds, tables and SVG charts, no external files. */
export function renderHtmlReport(
  run: RunDetail,
  series: Timeseries,
  distribution: LatencyDistribution | null = null,
  heatmap: LatencyHeatmap | null = null,
): string {
  const t = run.summary.total;
  const errorRate = t.requests ? (t.failures / t.requests) * 100 : 0;
  const verdict =
    run.passed === null
      ? ""
      : run.passed
        ? '<span class="pass">thresholds passed</span>'
        : '<span class="fail">thresholds failed</span>';
  const cards = [
    ["Requests", fmt(t.requests)],
    ["Throughput", `${fmt(t.rps)} req/s`],
    ["Errors", `${errorRate.toFixed(2)} %`],
    ["p50", formatMs(t.latencyMs.p50)],
    ["p95", formatMs(t.latencyMs.p95)],
    ["p99", formatMs(t.latencyMs.p99)],
    ["Max", formatMs(t.latencyMs.max)],
    ["Duration", `${run.summary.durationS.toFixed(1)} s`],
  ]
    .map(([label, value]) => `<div class="card"><span>${label}</span><b>${value}</b></div>`)
    .join("");
  const points = series.overall;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Volley report: ${escapeHtml(run.name)}</title><style>${STYLE}</style></head><body><main>
<h1>${escapeHtml(run.name)}</h1>
<div class="meta">Run ${escapeHtml(run.id)} · ${escapeHtml(statusLabel(run))} · ${escapeHtml(run.scenario.load?.executor ?? `${Object.keys(run.scenario.scenarios ?? {}).length} scenarios`)} · started ${reportDate(run.startedAt)} · ended ${reportDate(run.finishedAt)} ${verdict}</div>
${run.error ? `<div class="warn">${escapeHtml(run.error)}</div>` : ""}
<div class="trust trust-${run.trust.verdict}" data-verdict="${run.trust.verdict}"><b>Figures: ${run.trust.verdict}</b>${run.trust.reasons.length ? `<ul>${run.trust.reasons.map((r) => `<li>${escapeHtml(r.message)}</li>`).join("")}</ul>` : " (no saturation, loss, drops or short run)"}</div>
<div class="cards">${cards}</div>
${capacitySection(run.summary.capacity)}
${thresholdTable(run)}
<h2>Charts</h2>
${svgLineChart("Throughput and errors", "per second", [
  { label: "requests/s", color: MEASURE_COLOURS.throughput, points: points.map((p) => [p.t, p.rps]) },
  { label: "errors/s", color: MEASURE_COLOURS.errors, points: points.map((p) => [p.t, p.errorsPerSec]) },
])}
${svgLineChart("Latency", "ms", [
  { label: "p50", color: PERCENTILE_COLOURS.p50, points: points.map((p) => [p.t, p.p50]) },
  { label: "p95", color: PERCENTILE_COLOURS.p95, points: points.map((p) => [p.t, p.p95]) },
  { label: "p99", color: PERCENTILE_COLOURS.p99, points: points.map((p) => [p.t, p.p99]) },
])}
${svgLineChart("Virtual users", "VUs", [{ label: "VUs", color: MEASURE_COLOURS.vus, points: points.map((p) => [p.t, p.vus]) }], { whole: true })}
${heatmap ? svgHeatmap(heatmap, points) : ""}
${distributionChart(run, distribution)}
<h2>Requests</h2>
<table><thead><tr><th>Name</th><th>Requests</th><th>Failures</th><th>req/s</th>${LATENCY_COLUMNS.map((c) => `<th>${c.label}</th>`).join("")}<th>in</th><th>out</th></tr></thead><tbody>
${run.summary.requests.map((r) => requestRow(summaryLabel(r), r)).join("")}
${requestRow("Total", t)}
</tbody></table>
${
  run.summary.scenarios?.length
    ? `<h2>Scenarios</h2>
<table><thead><tr><th>Scenario</th><th>Requests</th><th>Failures</th><th>req/s</th>${LATENCY_COLUMNS.map((c) => `<th>${c.label}</th>`).join("")}<th>in</th><th>out</th></tr></thead><tbody>
${run.summary.scenarios.map((p) => requestRow(p.name, p)).join("")}
</tbody></table>`
    : ""
}
${
  run.summary.groups?.length
    ? `<h2>Groups</h2>
<p>Each group's latency runs from its first request sent to its last answered; a group failed when one of its requests did.</p>
<table><thead><tr><th>Group</th><th>Runs</th><th>Failed</th><th>runs/s</th>${LATENCY_COLUMNS.map((c) => `<th>${c.label}</th>`).join("")}<th>in</th><th>out</th></tr></thead><tbody>
${run.summary.groups.map((g) => requestRow(scopedName(g.scenario, g.name), g)).join("")}
</tbody></table>`
    : ""
}
${
  run.summary.checks?.length
    ? `<h2>Checks</h2>
<p>A request with <code>expect</code> is a check: it passed when the answer met every expectation.</p>
<table><thead><tr><th>Check</th><th>Passes</th><th>Fails</th><th>Pass rate</th></tr></thead><tbody>
${run.summary.checks
  .map(
    (c) =>
      `<tr><td>${escapeHtml(c.name)}</td><td>${fmt(c.passes)}</td><td>${fmt(c.fails)}</td><td>${formatPassRate(c)}</td></tr>`,
  )
  .join("")}
</tbody></table>`
    : ""
}
${phasesSection(run)}
${slowestSection(run)}
${metricsSection(run, series)}
${messagesTable(run)}
${streamsTable(run)}
<h2>Status codes</h2>
<table><thead><tr><th>Status</th><th>Count</th></tr></thead><tbody>${Object.entries(run.summary.statusCodes)
    .map(([code, count]) => `<tr><td>${escapeHtml(code)}</td><td>${fmt(count)}</td></tr>`)
    .join("")}</tbody></table>
<h2>Errors</h2>
${
  run.summary.errors.length
    ? `<table><thead><tr><th>Kind</th><th class="text">Request</th><th class="text">Message</th><th>Count</th><th class="text">Traces</th></tr></thead><tbody>${run.summary.errors
        .map(
          (e) =>
            `<tr><td>${escapeHtml(e.kind)}</td><td class="text">${escapeHtml(e.request ?? "")}</td><td class="text wrap">${escapeHtml(e.message)}</td><td>${fmt(e.count)}</td><td class="text">${(e.traceIds ?? []).map((id) => traceCell(run, id)).join("<br>")}</td></tr>`,
        )
        .join("")}</tbody></table>`
    : "<p>No errors.</p>"
}
<h2>Workers</h2>
<table><thead><tr><th>Worker</th><th>Host</th><th>Threads</th><th>VUs</th><th>Requests</th><th>Share</th><th>Peak CPU</th><th>Status</th></tr></thead><tbody>
${run.workers
  .map(
    (w) =>
      `<tr><td>${escapeHtml(w.name)}</td><td>${escapeHtml(w.host)}</td><td>${w.threads}</td><td>${w.vus}</td><td>${fmt(w.requests)}</td><td>${(w.share * 100).toFixed(1)} %</td><td>${Math.round(w.peakCpu)} %</td><td>${escapeHtml(w.status)}</td></tr>`,
  )
  .join("")}
</tbody></table>
<p class="meta">Generated by Volley. Percentiles come from HDR histograms merged across workers (3 significant digits).</p>
</main></body></html>`;
  // Wide tables scroll inside their box on a phone; the page itself never scrolls sideways.
  return html.replaceAll("<table>", '<div class="scroll"><table>').replaceAll("</table>", "</table></div>");
}

function thresholdTable(run: RunDetail): string {
  if (!run.thresholds.length) return "";
  return `<h2>Thresholds</h2><table><thead><tr><th>Metric</th><th>Rule</th><th>Actual</th><th>Result</th></tr></thead><tbody>${run.thresholds
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.key)}</td><td>${escapeHtml(r.expression)}</td><td>${escapeHtml(formatThresholdActual(r))}</td><td class="${r.pass ? "pass" : "fail"}">${r.pass ? "pass" : "fail"}</td></tr>`,
    )
    .join("")}</tbody></table>`;
}

function requestRow(name: string, r: TotalsSummary & { method?: string }): string {
  const l = r.latencyMs;
  // A group is timed, not sent: its requests' bytes are theirs ("–", not "0 B").
  const bytes = (n: number) => (r.method === GROUP_METHOD ? "–" : formatBytes(n));
  return `<tr><td>${escapeHtml(name)}</td><td>${fmt(r.requests)}</td><td>${fmt(r.failures)}</td><td>${fmt(r.rps)}</td>${LATENCY_COLUMNS.map(
    (c) => `<td>${formatMs(l[c.key])}</td>`,
  ).join("")}<td>${bytes(r.bytesIn)}</td><td>${bytes(r.bytesOut)}</td></tr>`;
}

function fmt(value: number): string {
  return formatNumber(value);
}

/** Messages both ways under each name that carried some (WebSocket handshakes, gRPC streams). */
function messagesTable(run: RunDetail): string {
  const carriers = run.summary.requests.filter((r) => r.ws);
  if (carriers.length === 0) return "";
  return `<h2>Messages</h2>
<table><thead><tr><th class="text">Name</th><th class="text">Kind</th><th>Opened</th><th>Sent</th><th>Received</th><th>Bytes out</th><th>Bytes in</th></tr></thead><tbody>
${carriers
  .map(
    (r) =>
      `<tr><td class="text">${escapeHtml(scopedName(r.scenario, r.name))}</td><td class="text">${messageKind(r.method)}</td><td>${fmt(r.requests)}</td><td>${fmt(r.ws?.messagesSent ?? 0)}</td><td>${fmt(r.ws?.messagesReceived ?? 0)}</td><td>${formatBytes(r.ws?.bytesOut)}</td><td>${formatBytes(r.ws?.bytesIn)}</td></tr>`,
  )
  .join("")}
</tbody></table>`;
}

/** Each streamed request's timings: first byte, first event and gaps (p50/p95/p99), events. */
function streamsTable(run: RunDetail): string {
  const streamed = run.summary.requests.filter((r) => r.stream);
  if (streamed.length === 0) return "";
  const cells = (l: { p50: number; p95: number; p99: number }) =>
    `<td>${formatMs(l.p50)}</td><td>${formatMs(l.p95)}</td><td>${formatMs(l.p99)}</td>`;
  return `<h2>Streams</h2>
<p>Times from the request's start to its first byte and first event, and between events; merged over every stream.</p>
<table><thead><tr><th class="text">Request</th><th>first byte p50</th><th>p95</th><th>p99</th><th>first event p50</th><th>p95</th><th>p99</th><th>gap p50</th><th>p95</th><th>p99</th><th>Events</th><th>per stream</th></tr></thead><tbody>
${streamed
  .map((r) => {
    const s = r.stream as NonNullable<typeof r.stream>;
    return `<tr><td class="text">${escapeHtml(scopedName(r.scenario, r.name))}</td>${cells(s.firstByteMs)}${cells(s.firstEventMs)}${cells(s.gapMs)}<td>${fmt(s.events)}</td><td>${s.eventsPerStream}</td></tr>`;
  })
  .join("")}
</tbody></table>`;
}

/**
 * A moment as the report writes it: a saved page has no reader's locale to ask, so one plain
 * unambiguous form, in UTC ("2026-12-02 11:29:01 UTC"); the exact instant rides along.
 */
function reportDate(iso: string | null): string {
  if (!iso) return "–";
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(text)}</time>`;
}

/** The latency distribution: the whole run's line and each request's (dashed), as on the run page. */
function distributionChart(run: RunDetail, distribution: LatencyDistribution | null): string {
  if (!distribution) return "";
  const requests = run.summary.requests
    .map((r) => ({
      label: summaryLabel(r),
      points: distribution.requests[scopedName(r.scenario, r.name)] ?? [],
    }))
    .filter((r) => r.points.length > 0)
    .slice(0, LINE_COLOURS.length);
  return svgDistributionChart("Latency by percentile", [
    { label: "whole run", color: "#5b6475", points: distribution.total },
    ...requests.map((r, i) => ({ ...r, color: LINE_COLOURS[i], dashed: true })),
  ]);
}
