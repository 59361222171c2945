import {
  formatElapsed,
  type LatencyHeatmap as Heatmap,
  PERCENTILE_COLOURS,
  type TimeseriesPoint,
} from "@volley/protocol";
import { useEffect, useMemo, useRef, useState } from "react";
import { useApi } from "../../api/use-api.js";
import { formatSignificant } from "../../format/format.js";
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
  const [hover, setHover] = useState<{ second: number; bucket: number } | null>(null);
  const figure = useRef<HTMLElement>(null);
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
    const started = performance.now();
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
    // How long drawing took, for the browser test that holds an hour of seconds under a second.
    figure.current?.setAttribute("data-draw-ms", (performance.now() - started).toFixed(1));
  }, [data, points, width, themeVersion]);
  const total = useMemo(
    () => (data ? data.counts.reduce((n, row) => row.reduce((m, c) => m + c, n), 0) : 0),
    [data],
  );
  if (heatmap.error) return <div className="callout bad">{heatmap.error.message}</div>;
  if (data && data.seconds.length === 0) return null;
  const scale = data && width ? heatmapScale(data, width, HEIGHT) : null;
  const offset = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  };
  const secondAt = (event: React.PointerEvent<HTMLCanvasElement>) =>
    scale ? scale.second(offset(event).x) : 0;
  return (
    <section data-testid="latency-heatmap">
      <h2>Latency heatmap</h2>
      <figure ref={figure} className="chart heatmap" aria-label="Latency heatmap" data-requests={total}>
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
            onPointerMove={(event) => {
              if (drag) setDrag({ ...drag, to: secondAt(event) });
              else if (scale) {
                const { x, y } = offset(event);
                const at = { second: scale.secondAt(x), bucket: scale.bucketAt(y) };
                setHover(at.second < 0 || at.bucket < 0 ? null : at);
              }
            }}
            onPointerLeave={() => setHover(null)}
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
        {data && <HeatmapReadout data={data} at={hover} />}
      </figure>
    </section>
  );
}

/** The cell under the cursor in words: its second, its latency range and its requests. */
function HeatmapReadout({ data, at }: { data: Heatmap; at: { second: number; bucket: number } | null }) {
  if (!at)
    return <p className="heatmap-readout muted">Point at a cell to read it; drag to select seconds.</p>;
  const row = data.seconds.indexOf(at.second);
  const requests = row < 0 ? 0 : data.counts[row][at.bucket];
  const ofSecond = row < 0 ? 0 : data.counts[row].reduce((n, c) => n + c, 0);
  const range = `${formatSignificant(data.edgesMs[at.bucket])}–${formatSignificant(data.edgesMs[at.bucket + 1])} ms`;
  return (
    <p
      className="heatmap-readout"
      data-testid="heatmap-readout"
      data-second={at.second}
      data-bucket={at.bucket}
    >
      <b>{formatElapsed(at.second)}</b> · {range}: <b>{requests.toLocaleString()}</b> requests (of{" "}
      {ofSecond.toLocaleString()} that second)
    </p>
  );
}
