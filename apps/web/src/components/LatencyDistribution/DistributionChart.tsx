import {
  axisPercentile,
  DISTRIBUTION_AXIS_END,
  DISTRIBUTION_TICKS,
  type DistributionPoint,
  percentileAxis,
  percentileLabel,
} from "@volley/protocol";
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import { NICE_STEPS } from "../../format/format.js";
import { onThemeChange } from "../../theme.js";
import "uplot/dist/uPlot.min.css";

export interface DistributionLine {
  label: string;
  /** None: the theme's text colour (the whole run's line). */
  color?: string;
  points: DistributionPoint[];
  dashed?: boolean;
}

/**
 * Latency by percentile, each nine (90, 99, 99.9, 99.99 %) given equal room, as HdrHistogram's
 * percentile plot draws it: the tail a time series hides is half the picture.
 */
export function DistributionChart({
  title,
  lines,
  height = 260,
}: {
  title: string;
  lines: DistributionLine[];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [themeVersion, setThemeVersion] = useState(0);
  useEffect(() => onThemeChange(() => setThemeVersion((v) => v + 1)), []);
  const key = lines.map((l) => `${l.label}|${l.color}|${l.points.length}|${l.points.at(-1)?.ms}`).join(",");

  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt when the lines change (their key)
  useEffect(() => {
    if (!box.current || lines.length === 0) return;
    const style = getComputedStyle(box.current);
    const muted = style.getPropertyValue("--muted").trim() || "#5b6475";
    const grid = style.getPropertyValue("--grid").trim() || "#edf0f4";
    const text = style.getPropertyValue("--text").trim() || "#1d2330";
    // Every line is read at the same percentiles: one x for all.
    const ps = lines[0].points.map((point) => point.p);
    const data = [ps.map(percentileAxis), ...lines.map((l) => l.points.map((point) => point.ms))];
    const plot = new uPlot(
      {
        width: box.current.clientWidth || 600,
        height,
        scales: {
          x: { time: false, range: [0, DISTRIBUTION_AXIS_END] },
          y: { range: (_u, _min, max) => [0, (max ?? 0) > 0 ? (max as number) * 1.08 : 1] },
        },
        axes: [
          {
            stroke: muted,
            grid: { stroke: grid },
            ticks: { stroke: grid },
            splits: () => [...DISTRIBUTION_TICKS.map(percentileAxis), DISTRIBUTION_AXIS_END],
            // Under 360 px "99.99 %" would run into "max", half a nine away: the max is kept.
            values: (u, splits) =>
              splits.map((x) =>
                u.bbox.width / devicePixelRatio < 360 && x === percentileAxis(99.99)
                  ? ""
                  : percentileLabel(axisPercentile(x)),
              ),
          },
          { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid }, size: 60, incrs: NICE_STEPS },
        ],
        series: [
          { label: "percentile", value: (_u, x) => (x == null ? "" : percentileLabel(axisPercentile(x))) },
          ...lines.map((l) => ({
            label: l.label,
            stroke: l.color ?? text,
            width: 1.6,
            dash: l.dashed ? [6, 4] : undefined,
            points: { show: false },
            value: (_u: uPlot, v: number | null) => (v == null ? "–" : `${Number(v.toPrecision(3))} ms`),
          })),
        ],
        legend: { live: true },
        hooks: {
          // Away from the cursor the legend reads the maximum.
          ready: [(u) => u.setLegend({ idx: ps.length - 1 }, false)],
          setCursor: [(u) => u.cursor.idx == null && u.setLegend({ idx: ps.length - 1 }, false)],
        },
      },
      data as uPlot.AlignedData,
      box.current,
    );
    const observer = new ResizeObserver(() => {
      if (box.current) plot.setSize({ width: box.current.clientWidth, height });
    });
    observer.observe(box.current);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [key, height, themeVersion]);

  return (
    <figure className="chart" aria-label={title}>
      <figcaption>
        {title} <small>(ms by percentile)</small>
      </figcaption>
      <div ref={box} className="chart-box" />
    </figure>
  );
}
