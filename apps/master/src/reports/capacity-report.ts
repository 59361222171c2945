import {
  type CapacityResult,
  capacityStairs,
  formatMs,
  MEASURE_COLOURS,
  PERCENTILE_COLOURS,
  stepVerdict,
} from "@volley/protocol";
import { escapeHtml, svgLineChart } from "./svg-chart.js";

/** The HTML report's capacity section: the answer in a sentence, the staircase, each step. */
export function capacitySection(capacity: CapacityResult | undefined): string {
  if (!capacity) return "";
  const stairs = capacityStairs(capacity);
  const rows = capacity.steps
    .map(
      (s, i) =>
        `<tr><td>${i + 1}</td><td>${s.rate}</td><td>${s.achievedRps.toFixed(1)}</td><td>${s.p95 === null ? "–" : formatMs(s.p95)}</td><td>${(s.errorRate * 100).toFixed(2)} %</td><td>${s.dropped}</td><td class="${s.ok ? "pass" : s.noise ? "" : "fail"}">${stepVerdict(s)}</td></tr>`,
    )
    .join("");
  return `<h2>Capacity</h2>
<p class="capacity" data-limited-by="${capacity.limitedBy}"><b>${escapeHtml(capacity.sentence)}</b></p>
${svgLineChart("Rate by step", "per second", [
  { label: "planned rate", color: MEASURE_COLOURS.planned, points: stairs.rate },
  { label: "achieved", color: MEASURE_COLOURS.throughput, points: stairs.achieved },
])}
${svgLineChart("p95 by step", "ms", [{ label: "p95", color: PERCENTILE_COLOURS.p95, points: stairs.p95 }])}
<table><thead><tr><th>Step</th><th>Rate</th><th>Achieved</th><th>p95</th><th>Errors</th><th>Dropped</th><th>SLO</th></tr></thead><tbody>${rows}</tbody></table>`;
}
