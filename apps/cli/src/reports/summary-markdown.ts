import {
  formatMs,
  formatPassRate,
  formatQuantity,
  formatThresholdActual,
  metricFigures,
  metricTypeLabel,
  type RunDetail,
  statusLabel,
  summaryLabel,
} from "@volley/protocol";

/**
 * A run as Markdown for a CI step summary ($GITHUB_STEP_SUMMARY): the verdicts first (status,
 * thresholds, trust with its reasons), then a table per request, then checks and custom metrics.
 */
export function summaryMarkdown(run: RunDetail): string {
  const t = run.summary.total;
  const passed =
    run.passed === null ? "no thresholds" : run.passed ? "thresholds passed" : "**thresholds failed**";
  const out = [
    `## Volley: ${cell(run.name)}`,
    "",
    `${statusLabel(run)} · ${passed} · figures **${run.trust.verdict}** · ${formatQuantity(t.requests, "request")} in ${run.summary.durationS.toFixed(1)} s · run \`${run.id}\``,
    "",
  ];
  if (run.error) out.push(`> ${cell(run.error)}`, "");
  if (run.trust.reasons.length) {
    out.push(...run.trust.reasons.map((r) => `- ${cell(r.message)}`), "");
  }
  if (run.thresholds.length) {
    out.push("| threshold | rule | actual | |", "| --- | --- | --- | --- |");
    for (const r of run.thresholds) {
      out.push(
        `| \`${cell(r.key)}\` | ${cell(r.expression)} | ${formatThresholdActual(r)} | ${r.pass ? "✅" : "❌"} |`,
      );
    }
    out.push("");
  }
  out.push(
    "| request | requests | failures | req/s | p50 | p95 | p99 | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const r of [...run.summary.requests, { ...t, name: "**Total**", method: "" }]) {
    const l = r.latencyMs;
    const label = r.method ? cell(summaryLabel(r)) : r.name;
    out.push(
      `| ${label} | ${r.requests.toLocaleString("en-US")} | ${r.failures.toLocaleString("en-US")} | ${r.rps.toFixed(1)} | ${formatMs(l.p50)} | ${formatMs(l.p95)} | ${formatMs(l.p99)} | ${formatMs(l.max)} |`,
    );
  }
  const checks = run.summary.checks ?? [];
  if (checks.length) {
    out.push("", "| check | passed | failed | rate |", "| --- | ---: | ---: | ---: |");
    for (const c of checks) out.push(`| ${cell(c.name)} | ${c.passes} | ${c.fails} | ${formatPassRate(c)} |`);
  }
  const metrics = Object.entries(run.summary.metrics ?? {});
  if (metrics.length) {
    out.push("", "| metric | type | figures |", "| --- | --- | --- |");
    for (const [name, metric] of metrics) {
      const figures = metricFigures(metric).map((f) => `${f.label} ${f.text}`);
      out.push(`| ${cell(name)} | ${metricTypeLabel(metric)} | ${figures.join(" · ")} |`);
    }
  }
  return `${out.join("\n")}\n`;
}

/** Text that cannot break a Markdown table row or start a block. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ");
}
