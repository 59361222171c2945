import {
  axisTicks,
  DISTRIBUTION_AXIS_END,
  DISTRIBUTION_TICKS,
  type DistributionPoint,
  maxOf,
  NICE_STEPS,
  percentileAxis,
  percentileLabel,
} from "@volley/protocol";
import { escapeHtml } from "./svg-chart.js";

/** A line of the distribution plot. */
export interface DistributionLine {
  label: string;
  color: string;
  points: DistributionPoint[];
  dashed?: boolean;
}

const WIDTH = 900;
const HEIGHT = 240;
const PAD = { left: 56, right: 24, top: 12, bottom: 28 };

/**
 * Latency by percentile as inline SVG (the dashboard's plot, for the self-contained report):
 * each nine (90, 99, 99.9, 99.99 %) given equal room, ending at the maximum.
 */
export function svgDistributionChart(title: string, lines: DistributionLine[]): string {
  const drawn = lines.filter((line) => line.points.length > 0);
  if (drawn.length === 0) return "";
  const yTicks = axisTicks(maxOf(drawn.flatMap((line) => line.points.map((p) => p.ms))), NICE_STEPS);
  const maxY = yTicks[yTicks.length - 1];
  const x = (p: number) =>
    PAD.left + (percentileAxis(p) / DISTRIBUTION_AXIS_END) * (WIDTH - PAD.left - PAD.right);
  const y = (ms: number) => HEIGHT - PAD.bottom - (ms / maxY) * (HEIGHT - PAD.top - PAD.bottom);
  const grid = yTicks
    .map(
      (ms) =>
        `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(ms)}" y2="${y(ms)}" class="grid"/><text x="${PAD.left - 6}" y="${y(ms) + 4}" text-anchor="end">${Number(ms.toPrecision(3))}</text>`,
    )
    .join("");
  const xLabels = [...DISTRIBUTION_TICKS, 100]
    .map((p) => {
      const label = percentileLabel(p);
      return `<line x1="${x(p)}" x2="${x(p)}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}" class="grid"/><text x="${x(p)}" y="${HEIGHT - 8}" text-anchor="middle">${label}</text>`;
    })
    .join("");
  const paths = drawn
    .map((line) => {
      const d = line.points
        .map((p, i) => `${i ? "L" : "M"}${x(p.p).toFixed(1)},${y(p.ms).toFixed(1)}`)
        .join("");
      const dash = line.dashed ? ' stroke-dasharray="6 4"' : "";
      return `<path d="${d}" fill="none" stroke="${line.color}" stroke-width="1.6"${dash}/>`;
    })
    .join("");
  const legend = drawn
    .map(
      (line) =>
        `<span class="key"><i style="background:${line.color}"></i>${escapeHtml(line.label)} ${Number(line.points[line.points.length - 1].ms.toPrecision(3))} ms max</span>`,
    )
    .join("");
  return `<figure class="chart distribution"><figcaption>${escapeHtml(title)} <small>(ms by percentile)</small> ${legend}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">${grid}${xLabels}${paths}</svg></figure>`;
}
