import { type RunDetail, scopedName, traceLink, traceLinkTemplate } from "@volley/protocol";
import { escapeHtml } from "./svg-chart.js";

/** A trace id, linked through the template when there is one. */
export function traceCell(run: RunDetail, traceId: string): string {
  const href = traceLink(traceLinkTemplate(run.scenario), traceId);
  const code = `<code>${escapeHtml(traceId)}</code>`;
  return href ? `<a href="${escapeHtml(href)}" rel="noreferrer noopener">${code}</a>` : code;
}

/** The HTML report's phases of each timed request name: connect, TLS and waiting, p50/p95/p99. */
export function phasesSection(run: RunDetail): string {
  const timed = run.summary.requests.filter((r) => r.timings);
  if (timed.length === 0) return "";
  const cells = (p?: { p50: number; p95: number; p99: number }) =>
    [p?.p50, p?.p95, p?.p99].map((v) => `<td>${v === undefined ? "–" : `${v.toFixed(2)} ms`}</td>`).join("");
  const rows = timed.map(
    (r) =>
      `<tr><td class="text">${escapeHtml(scopedName(r.scenario, r.name))}</td><td>${r.timings?.count ?? 0}</td>${cells(r.timings?.connectMs)}${cells(r.timings?.tlsMs)}${cells(r.timings?.waitingMs)}</tr>`,
  );
  const heads = ["connect", "TLS", "waiting"].flatMap((p) =>
    ["p50", "p95", "p99"].map((q) => `<th>${p} ${q}</th>`),
  );
  return `<h2>Where the time went</h2>
<p>Connecting (0 on a reused connection), TLS, and waiting for the first byte once sent.</p>
<table><thead><tr><th class="text">Request</th><th>Timed</th>${heads.join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** The HTML report's slowest requests per name with their trace ids (`http.tracing`). */
export function slowestSection(run: RunDetail): string {
  const traced = run.summary.requests.filter((r) => r.slowest?.length);
  if (traced.length === 0) return "";
  const start = run.startedAt ? Date.parse(run.startedAt) : Number.NaN;
  const rows = traced.flatMap((r) =>
    (r.slowest ?? []).map(
      (t, i) =>
        `<tr><td class="text">${i === 0 ? escapeHtml(scopedName(r.scenario, r.name)) : ""}</td><td>${t.ms.toFixed(1)} ms</td><td>${Number.isNaN(start) ? "–" : `${((t.at - start) / 1000).toFixed(1)} s`}</td><td class="text">${traceCell(run, t.traceId)}</td></tr>`,
    ),
  );
  return `<h2>Slowest requests</h2>
<p>Each request name's slowest, with the trace id it was sent with (W3C <code>traceparent</code>).</p>
<table><thead><tr><th class="text">Request</th><th>Latency</th><th>Ended at</th><th class="text">Trace</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}
