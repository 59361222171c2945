import { downsample, maxOf } from "@volley/protocol";

/** A small line chart as inline SVG, for the self-contained HTML report (no script needed). */
export interface ChartSeries {
  label: string;
  color: string;
  points: Array<[number, number | null]>;
}

const WIDTH = 900;
const HEIGHT = 220;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };
/** Points drawn per series: more than the chart has pixels is only weight (a long run has 100,000s). */
const MAX_POINTS = 1200;

export function svgLineChart(title: string, unit: string, input: ChartSeries[]): string {
  const series = input.map((s) => ({
    ...s,
    points: downsample(
      s.points.filter((p): p is [number, number] => p[1] !== null),
      MAX_POINTS,
      (p) => p[1],
    ),
  }));
  if (series.every((s) => s.points.length === 0))
    return `<figure class="chart"><figcaption>${escapeHtml(title)}</figcaption><p>No data.</p></figure>`;
  const maxX = maxOf(
    series.flatMap((s) => s.points.map((p) => p[0])),
    1,
  );
  const maxY = niceMax(maxOf(series.flatMap((s) => s.points.map((p) => p[1]))));
  const x = (v: number) => PAD.left + (v / maxX) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / maxY) * (HEIGHT - PAD.top - PAD.bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const value = maxY * f;
      return `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(value)}" y2="${y(value)}" class="grid"/><text x="${PAD.left - 6}" y="${y(value) + 4}" text-anchor="end">${formatTick(value)}</text>`;
    })
    .join("");
  const xTicks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<text x="${x(maxX * f)}" y="${HEIGHT - 8}" text-anchor="middle">${formatTick(maxX * f)}s</text>`,
    )
    .join("");
  const lines = series
    .map((s) => {
      const path = s.points
        .map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`)
        .join("");
      return `<path d="${path}" fill="none" stroke="${s.color}" stroke-width="1.6"/>`;
    })
    .join("");
  const legend = series
    .map((s) => `<span class="key"><i style="background:${s.color}"></i>${escapeHtml(s.label)}</span>`)
    .join("");
  return `<figure class="chart"><figcaption>${escapeHtml(title)} <small>(${escapeHtml(unit)})</small> ${legend}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">${grid}${xTicks}${lines}</svg></figure>`;
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * magnitude) return step * magnitude;
  return 10 * magnitude;
}

function formatTick(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)}k`;
  if (Number.isInteger(value)) return String(value);
  return value >= 10 ? value.toFixed(0) : String(Math.round(value * 100) / 100);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
