import {
  axisTicks,
  formatElapsed,
  heatmapColumns,
  heatmapHeight,
  heatmapOpacity,
  type LatencyHeatmap,
  PERCENTILE_COLOURS,
  SECOND_TICKS,
  type TimeseriesPoint,
} from "@volley/protocol";
import { escapeHtml } from "./svg-chart.js";

const WIDTH = 900;
const HEIGHT = 240;
const PAD = { left: 64, right: 12, top: 8, bottom: 28 };
/** Columns drawn at most: a long run's seconds are merged into this many (a page stays light). */
const MAX_COLUMNS = 300;

/**
 * The latency heatmap as inline SVG, for the self-contained report: seconds (merged into at most
 * MAX_COLUMNS columns) by latency bucket, darker for more requests, the p50/p95/p99 over it.
 */
export function svgHeatmap(data: LatencyHeatmap, points: readonly TimeseriesPoint[]): string {
  if (data.seconds.length === 0) return "";
  const span = data.seconds[data.seconds.length - 1] + 1;
  const { perColumn, count, columns, most } = heatmapColumns(data, MAX_COLUMNS);
  const buckets = data.edgesMs.length - 1;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const cellW = plotW / count;
  const cellH = plotH / buckets;
  const x = (second: number) => PAD.left + (second / perColumn) * cellW;
  const y = (ms: number) => PAD.top + plotH - heatmapHeight(data, ms) * plotH;
  const cells = columns
    .flatMap(({ column, counts }) =>
      counts.map((n, bucket) =>
        n === 0
          ? ""
          : `<rect x="${(PAD.left + column * cellW).toFixed(1)}" y="${(PAD.top + plotH - (bucket + 1) * cellH).toFixed(1)}" width="${Math.max(1, cellW - 0.5).toFixed(1)}" height="${cellH.toFixed(1)}" fill-opacity="${heatmapOpacity(n, most).toFixed(2)}"/>`,
      ),
    )
    .join("");
  const yLabels = Array.from({ length: Math.floor(buckets / 8) + 1 }, (_, i) => data.edgesMs[i * 8])
    .map(
      (ms) =>
        `<text x="${PAD.left - 6}" y="${y(ms) + 4}" text-anchor="end">${Number(ms.toPrecision(2))} ms</text>`,
    )
    .join("");
  const xLabels = axisTicks(span, SECOND_TICKS, 6)
    .filter((t) => t <= span)
    .map((t) => `<text x="${x(t)}" y="${HEIGHT - 8}" text-anchor="middle">${formatElapsed(t)}</text>`)
    .join("");
  const lines = (Object.keys(PERCENTILE_COLOURS) as Array<keyof typeof PERCENTILE_COLOURS>)
    .map((key) => {
      const d = points
        .filter((p) => (p[key] ?? 0) > 0)
        .map(
          (p, i) =>
            `${i ? "L" : "M"}${(x(p.t) + cellW / perColumn / 2).toFixed(1)},${y(p[key] as number).toFixed(1)}`,
        )
        .join("");
      return d ? `<path d="${d}" fill="none" stroke="${PERCENTILE_COLOURS[key]}" stroke-width="1.5"/>` : "";
    })
    .join("");
  const legend = Object.entries(PERCENTILE_COLOURS)
    .map(([key, colour]) => `<span class="key"><i style="background:${colour}"></i>${escapeHtml(key)}</span>`)
    .join("");
  return `<figure class="chart heatmap"><figcaption>Requests by second and latency <small>(darker: more requests${perColumn > 1 ? `; ${perColumn} s per column` : ""})</small> ${legend}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Latency heatmap"><g fill="#3b6fd8">${cells}</g>${yLabels}${xLabels}${lines}</svg></figure>`;
}
