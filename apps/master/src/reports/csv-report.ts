import { LATENCY_COLUMNS, type RunDetail, scopedName, type TotalsSummary } from "@volley/protocol";

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
 * requests = evaluated, failures = failed; no timings).
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
  return `${rows.join("\n")}\n`;
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
