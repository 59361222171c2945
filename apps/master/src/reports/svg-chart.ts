import {
  axisTicks,
  downsample,
  formatElapsed,
  maxOf,
  NICE_STEPS,
  SECOND_TICKS,
  WHOLE_STEPS,
} from "@volley/protocol";

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

export function svgLineChart(
  title: string,
  unit: string,
  input: ChartSeries[],
  options: { whole?: boolean } = {},
): string {
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
  const xTicks = axisTicks(
    maxOf(
      series.flatMap((s) => s.points.map((p) => p[0])),
      1,
    ),
    SECOND_TICKS,
    6,
  );
  const yTicks = axisTicks(
    maxOf(series.flatMap((s) => s.points.map((p) => p[1]))),
    options.whole ? WHOLE_STEPS : NICE_STEPS,
  );
  const maxX = xTicks[xTicks.length - 1];
  const maxY = yTicks[yTicks.length - 1];
  const x = (v: number) => PAD.left + (v / maxX) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / maxY) * (HEIGHT - PAD.top - PAD.bottom);
  const grid = yTicks
    .map(
      (value) =>
        `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(value)}" y2="${y(value)}" class="grid"/><text x="${PAD.left - 6}" y="${y(value) + 4}" text-anchor="end">${formatTick(value)}</text>`,
    )
    .join("");
  const xLabels = xTicks
    .map((t) => `<text x="${x(t)}" y="${HEIGHT - 8}" text-anchor="middle">${formatElapsed(t)}</text>`)
    .join("");
  const lines = series
    .map((s) => {
      const path = s.points
        .map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`)
        .join("");
      // A single point (a run of one second) has no line to draw: a dot shows it.
      const dot =
        s.points.length === 1
          ? `<circle cx="${x(s.points[0][0]).toFixed(1)}" cy="${y(s.points[0][1]).toFixed(1)}" r="3.5" fill="${s.color}"/>`
          : "";
      return `<path d="${path}" fill="none" stroke="${s.color}" stroke-width="1.6"/>${dot}`;
    })
    .join("");
  const legend = series
    .map((s) => `<span class="key"><i style="background:${s.color}"></i>${escapeHtml(s.label)}</span>`)
    .join("");
  return `<figure class="chart"><figcaption>${escapeHtml(title)} <small>(${escapeHtml(unit)})</small> ${legend}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">${grid}${xLabels}${lines}</svg></figure>`;
}

/** A value tick: 1-2-5 steps need no rounding beyond what they are ("2.5k" for 2,500, "0.02"). */
function formatTick(value: number): string {
  return value >= 1000 ? `${Number((value / 1000).toPrecision(3))}k` : String(Number(value.toPrecision(3)));
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
