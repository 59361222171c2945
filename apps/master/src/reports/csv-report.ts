import {
  LATENCY_COLUMNS,
  type MetricSummary,
  type RunDetail,
  scopedName,
  type TotalsSummary,
} from "@volley/protocol";

const COLUMNS = [
  "name",
  "method",
  "requests",
  "failures",
  "error_rate",
  "rps",
  ...LATENCY_COLUMNS.map((c) => `${c.key}_ms`),
  "bytes_in",
  "bytes_out",
];

/**
 * One row per request name ("SCENARIO · NAME" in a run of `scenarios:`), one for the whole run, as spreadsheets expect; then one per scenario
 * of `scenarios:` (method SCENARIO, its requests together) and one per group (method GROUP: a
 * group's runs are not requests): views of the total, after it. Checks come last (method CHECK:
 * requests = evaluated, failures = failed; no timings), then a script's custom metrics (method
 * METRIC:TYPE, see metricRow).
 */
export function renderCsvReport(run: RunDetail): string {
  const rows = [COLUMNS.join(",")];
  for (const request of run.summary.requests)
    rows.push(row(scopedName(request.scenario, request.name), request.method, request));
  rows.push(row("Total", "", run.summary.total));
  for (const part of run.summary.scenarios ?? []) rows.push(row(part.name, "SCENARIO", part));
  for (const group of run.summary.groups ?? [])
    rows.push(row(scopedName(group.scenario, group.name), group.method, group));
  for (const check of run.summary.checks ?? []) {
    const evaluated = check.passes + check.fails;
    const failRate = evaluated ? check.fails / evaluated : 0;
    rows.push([csvText(check.name), "CHECK", evaluated, check.fails, failRate.toFixed(6)].join(","));
  }
  for (const [name, metric] of Object.entries(run.summary.metrics ?? {})) rows.push(metricRow(name, metric));
  return `${rows.join("\n")}\n`;
}

/**
 * A custom metric's row: `requests` its values (a counter's sum), `rps` a counter's per second; a
 * rate's false values are its failures; a trend's figures (in its unit, not ms) and a gauge's
 * (last as mean, min, max) fill the timing columns they name.
 */
function metricRow(name: string, metric: MetricSummary): string {
  const cells: Record<string, string | number> = { name: csvText(name), method: `METRIC:${metric.type}` };
  if (metric.type === "trend") {
    cells.method = `METRIC:trend:${metric.unit}`;
    cells.requests = metric.count;
    for (const c of LATENCY_COLUMNS)
      if (c.key in metric) cells[`${c.key}_ms`] = metric[c.key as keyof typeof metric];
  } else if (metric.type === "counter") {
    cells.requests = metric.count;
    cells.rps = metric.ratePerSecond;
  } else if (metric.type === "rate") {
    cells.requests = metric.passes + metric.fails;
    cells.failures = metric.fails;
    cells.error_rate = (1 - metric.rate).toFixed(6);
  } else {
    cells.mean_ms = metric.last;
    cells.min_ms = metric.min;
    cells.max_ms = metric.max;
  }
  return COLUMNS.map((column) => cells[column] ?? "").join(",");
}

function row(name: string, method: string, totals: TotalsSummary): string {
  const l = totals.latencyMs;
  const errorRate = totals.requests ? totals.failures / totals.requests : 0;
  return [
    csvText(name),
    csvText(method),
    totals.requests,
    totals.failures,
    errorRate.toFixed(6),
    totals.rps,
    ...LATENCY_COLUMNS.map((c) => l[c.key]),
    totals.bytesIn,
    totals.bytesOut,
  ].join(",");
}

/**
 * A text cell. Spreadsheets run a cell that starts with = + - @ (or a tab or carriage return
 * before one) as a formula, quoted or not: such a cell gets a leading apostrophe (OWASP's advice).
 */
export function csvText(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r\t']/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
