import { type LatencyHeatmap as Heatmap, PERCENTILE_COLOURS, type TimeseriesPoint } from "@volley/protocol";
import { useEffect, useRef, useState } from "react";
import { useApi } from "../../api/use-api.js";
import { onThemeChange } from "../../theme.js";
import { drawHeatmap, heatmapScale } from "./draw-heatmap.js";

const HEIGHT = 260;

interface LatencyHeatmapProps {
  runId: string;
  points: readonly TimeseriesPoint[];
  /** Dragging across it selects whole seconds [from, to), as on the charts. */
  onSelect: (from: number, to: number) => void;
}

/** A finished run's seconds × latency buckets, with its p50/p95/p99 over them; drag to read a range. */
export function LatencyHeatmap({ runId, points, onSelect }: LatencyHeatmapProps) {
  const heatmap = useApi<Heatmap>(`/api/runs/${runId}/heatmap`);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [themeVersion, setThemeVersion] = useState(0);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  useEffect(() => onThemeChange(() => setThemeVersion((v) => v + 1)), []);
  useEffect(() => {
    const element = canvas.current?.parentElement;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const data = heatmap.data;
  // biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the theme changes too
  useEffect(() => {
    const element = canvas.current;
    if (!element || !data || width === 0) return;
    const ratio = window.devicePixelRatio || 1;
    element.width = width * ratio;
    element.height = HEIGHT * ratio;
    const ctx = element.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const style = getComputedStyle(element);
    drawHeatmap(
      ctx,
      data,
      points,
      { width, height: HEIGHT },
      {
        accent: style.getPropertyValue("--accent").trim() || "#3b6fd8",
        muted: style.getPropertyValue("--muted").trim() || "#5b6475",
        grid: style.getPropertyValue("--grid").trim() || "#edf0f4",
        lines: PERCENTILE_COLOURS,
      },
    );
  }, [data, points, width, themeVersion]);
  if (heatmap.error) return <div className="callout bad">{heatmap.error.message}</div>;
  if (data && data.seconds.length === 0) return null;
  const scale = data && width ? heatmapScale(data, width, HEIGHT) : null;
  const secondAt = (event: React.PointerEvent<HTMLCanvasElement>) =>
    scale ? scale.second(event.clientX - event.currentTarget.getBoundingClientRect().left) : 0;
  const total = data ? data.counts.flat().reduce((n, c) => n + c, 0) : 0;
  return (
    <section data-testid="latency-heatmap">
      <h2>Latency heatmap</h2>
      <figure className="chart heatmap" aria-label="Latency heatmap" data-requests={total}>
        <figcaption>
          Requests by second and latency <small>(darker: more requests)</small>{" "}
          {Object.entries(PERCENTILE_COLOURS).map(([key, colour]) => (
            <span key={key} className="heatmap-key">
              <i style={{ background: colour }} />
              {key}
            </span>
          ))}
        </figcaption>
        <div className="heatmap-box">
          <canvas
            ref={canvas}
            style={{ width: "100%", height: HEIGHT }}
            onPointerDown={(event) => {
              event.currentTarget.setPointerCapture(event.pointerId);
              const at = secondAt(event);
              setDrag({ from: at, to: at });
            }}
            onPointerMove={(event) => drag && setDrag({ ...drag, to: secondAt(event) })}
            onPointerUp={() => {
              if (drag && drag.to !== drag.from)
                onSelect(Math.min(drag.from, drag.to), Math.max(drag.from, drag.to));
              setDrag(null);
            }}
          />
          {drag && scale && (
            <div
              className="heatmap-brush"
              style={{
                left: scale.x(Math.min(drag.from, drag.to)),
                width: Math.abs(drag.to - drag.from) * scale.cellW,
              }}
            />
          )}
        </div>
      </figure>
    </section>
  );
}
