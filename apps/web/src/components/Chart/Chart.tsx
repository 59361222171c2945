import { useEffect, useMemo, useRef, useState } from "react";
import uPlot from "uplot";
import {
  formatElapsed,
  formatSignificant,
  NICE_STEPS,
  SECOND_TICKS,
  WHOLE_STEPS,
} from "../../format/format.js";
import { onThemeChange } from "../../theme.js";
import "uplot/dist/uPlot.min.css";

export interface ChartSeries {
  label: string;
  color: string;
  values: Array<number | null>;
  /** Draw dashed (the second run in a comparison). */
  dashed?: boolean;
}

interface ChartProps {
  title: string;
  unit: string;
  /** Seconds since the run's start. */
  x: number[];
  series: ChartSeries[];
  height?: number;
  /** Dragging across the chart selects whole seconds [from, to). */
  onSelect?: (from: number, to: number) => void;
  /** Names of the x positions (runs in a trend) instead of elapsed time. */
  xLabels?: string[];
  /** Moments to mark with a vertical line and a label (load changes), in seconds. */
  markers?: ChartMarker[];
  /** The values are counted whole (VUs): no fractional ticks. */
  whole?: boolean;
  /** Shaded between its low and high lines, drawn after `series`. */
  band?: ChartBand;
}

/** A range drawn shaded between two lines (the allowed change around a baseline). */
export interface ChartBand {
  label: string;
  color: string;
  low: Array<number | null>;
  high: Array<number | null>;
}

export interface ChartMarker {
  at: number;
  label: string;
}

/** A uPlot time series: fast enough for an hour of one-second points, resized with its box. */
export function Chart({
  title,
  unit,
  x,
  series,
  height = 220,
  onSelect,
  xLabels,
  markers,
  whole,
  band,
}: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const selected = useRef(onSelect);
  selected.current = onSelect;
  const labels = useRef(xLabels);
  labels.current = xLabels;
  const marks = useRef(markers);
  marks.current = markers;
  const lines = useMemo<ChartSeries[]>(
    () =>
      band
        ? [
            ...series,
            { label: `${band.label} high`, color: band.color, values: band.high },
            { label: `${band.label} low`, color: band.color, values: band.low },
          ]
        : series,
    [series, band],
  );
  const shape = lines.map((s) => `${s.label}|${s.color}|${s.dashed ? 1 : 0}`).join(",");
  const [themeVersion, setThemeVersion] = useState(0);
  useEffect(() => onThemeChange(() => setThemeVersion((v) => v + 1)), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt only when the set of series changes
  useEffect(() => {
    if (!box.current) return;
    // The canvas cannot read CSS variables: resolve the theme's colours now.
    const style = getComputedStyle(box.current);
    const muted = style.getPropertyValue("--muted").trim() || "#5b6475";
    const grid = style.getPropertyValue("--grid").trim() || "#edf0f4";
    const options: uPlot.Options = {
      width: box.current.clientWidth || 600,
      height,
      // From the start to the last second (at least one).
      scales: {
        x: {
          time: false,
          // Read from the data: uPlot widens a single point's range to 100 before asking.
          range: (u) => {
            const xs = u.data[0];
            const first = xs[0] ?? 0;
            return [Math.min(0, first), Math.max(xs[xs.length - 1] ?? 1, first + 1)];
          },
        },
        // From zero: a 1 % change does not look like a cliff (a negative value lowers it).
        y: { range: (_u, min, max) => [Math.min(0, min ?? 0), (max ?? 0) > 0 ? (max as number) * 1.08 : 1] },
      },
      axes: [
        {
          stroke: muted,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          incrs: SECOND_TICKS,
          values: (_u, ticks) =>
            labels.current
              ? ticks.map((t) => (Number.isInteger(t) ? (labels.current?.[t] ?? "") : ""))
              : ticks.map(formatElapsed),
        },
        {
          stroke: muted,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          size: 60,
          incrs: whole ? WHOLE_STEPS : NICE_STEPS,
        },
      ],
      series: [
        {
          label: "t",
          value: (_u, t) => (t == null ? "" : labels.current ? (labels.current[t] ?? "") : formatElapsed(t)),
        },
        ...lines.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          width: band && i >= series.length ? 1 : 1.6,
          dash: s.dashed ? [6, 4] : undefined,
          spanGaps: true,
          // Three significant digits are what a legend can be read at (255.973 reads 256).
          value: (_u: uPlot, v: number | null) => (v == null ? "–" : formatSignificant(v)),
        })),
      ],
      // The band's fill between its high line and its low one (the last two series).
      bands: band ? [{ series: [lines.length - 1, lines.length], fill: `${band.color}26` }] : undefined,
      legend: { live: true },
      // A drag selects a range of seconds (no zoom): the page shows that range's exact summary.
      cursor: { drag: { x: true, y: false, setScale: false } },
      hooks: {
        draw: [(u) => drawMarkers(u, marks.current ?? [], muted)],
        // Away from the cursor the legend reads the latest point, never "--".
        ready: [showLatest],
        setCursor: [(u) => u.cursor.idx == null && showLatest(u)],
        setSelect: [
          (u) => {
            if (u.select.width < 2 || !selected.current) return;
            const from = Math.max(0, Math.floor(u.posToVal(u.select.left, "x")));
            const to = Math.ceil(u.posToVal(u.select.left + u.select.width, "x"));
            if (to > from) selected.current(from, to);
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          },
        ],
      },
    };
    plot.current = new uPlot(options, [x, ...lines.map((s) => s.values)] as uPlot.AlignedData, box.current);
    const observer = new ResizeObserver(() => {
      if (box.current && plot.current) plot.current.setSize({ width: box.current.clientWidth, height });
    });
    observer.observe(box.current);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, height, themeVersion, whole]);

  useEffect(() => {
    if (!plot.current) return;
    plot.current.setData([x, ...lines.map((s) => s.values)] as uPlot.AlignedData);
    if (plot.current.cursor.idx == null) showLatest(plot.current);
  }, [x, lines]);

  const markerKey = markers?.map((m) => `${m.at}:${m.label}`).join(",") ?? "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the markers change
  useEffect(() => {
    plot.current?.redraw(false);
  }, [markerKey]);

  return (
    // data-last-t: the last second drawn, for tests to read what a canvas shows.
    <figure
      className="chart"
      aria-label={title}
      data-last-t={x.at(-1) ?? ""}
      data-markers={markers?.map((m) => m.at).join(",") || undefined}
    >
      <figcaption>
        {title} <small>({unit})</small>
        {markers && markers.length > 0 && (
          // The markers' labels are drawn on the canvas; screen readers get them as text.
          <span className="visually-hidden" data-testid="chart-markers">
            {markers.map((m) => `at ${m.at} s: ${m.label}`).join("; ")}
          </span>
        )}
      </figcaption>
      <div ref={box} className="chart-box" />
    </figure>
  );
}

/** The legend at the last point where every line has a value (a live run's newest measured second). */
function showLatest(u: uPlot): void {
  let last = u.data[0].length - 1;
  while (last > 0 && u.data.slice(1).some((values) => values[last] == null)) last--;
  if (last >= 0) u.setLegend({ idx: last }, false);
}

/** A dashed line at each marker's second, its label beside it at the top of the plot. */
function drawMarkers(u: uPlot, markers: ChartMarker[], color: string): void {
  if (!markers.length) return;
  const { ctx, bbox } = u;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.setLineDash([4, 4]);
  ctx.lineWidth = devicePixelRatio;
  ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
  ctx.textBaseline = "top";
  // uPlot leaves the alignment of its last axis labels set: the x maths below assumes left.
  ctx.textAlign = "left";
  // Where each row of labels is taken up to (px): a label that would run into the one before
  // it goes a row lower.
  const rowEnds: number[] = [];
  for (const marker of markers) {
    const left = Math.round(u.valToPos(marker.at, "x", true));
    if (left < bbox.left || left > bbox.left + bbox.width) continue;
    ctx.beginPath();
    ctx.moveTo(left, bbox.top);
    ctx.lineTo(left, bbox.top + bbox.height);
    ctx.stroke();
    const width = ctx.measureText(marker.label).width;
    // The label goes left of the line when it would leave the plot on the right.
    const right = bbox.left + bbox.width;
    const textLeft = Math.max(bbox.left, left + 4 + width > right ? left - 4 - width : left + 4);
    let row = rowEnds.findIndex((end) => end <= textLeft);
    if (row < 0) row = rowEnds.push(0) - 1;
    rowEnds[row] = textLeft + width + 6 * devicePixelRatio;
    ctx.fillText(marker.label, textLeft, bbox.top + 2 + row * 13 * devicePixelRatio);
  }
  ctx.restore();
}
