import {
  axisTicks,
  formatElapsed,
  heatmapColumns,
  heatmapHeight,
  heatmapOpacity,
  type LatencyHeatmap,
  SECOND_TICKS,
  type TimeseriesPoint,
} from "@volley/protocol";

/** Room around the plot for the axes' labels (CSS px). */
export const PAD = { left: 56, right: 12, top: 8, bottom: 24 };

export interface HeatmapColours {
  accent: string;
  muted: string;
  grid: string;
  lines: Record<"p50" | "p95" | "p99", string>;
}

/** Where a second and a latency are on the canvas, for drawing and for brushing. */
export function heatmapScale(data: LatencyHeatmap, width: number, height: number) {
  const lastSecond = data.seconds.length ? data.seconds[data.seconds.length - 1] : 0;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const cellW = plotW / (lastSecond + 1);
  const buckets = Math.max(1, data.edgesMs.length - 1);
  return {
    cellW,
    plotW,
    plotH,
    x: (second: number) => PAD.left + second * cellW,
    /** The boundary between seconds nearest `px` (for brushing whole seconds). */
    second: (px: number) => Math.max(0, Math.min(lastSecond + 1, Math.round((px - PAD.left) / cellW))),
    /** The second whose column holds `px`, or -1 beside the plot. */
    secondAt: (px: number) =>
      px < PAD.left || px >= PAD.left + plotW ? -1 : Math.floor((px - PAD.left) / cellW),
    /** The latency bucket at `py`, or -1 above or below the plot. */
    bucketAt: (py: number) => {
      const bucket = Math.floor((PAD.top + plotH - py) / (plotH / buckets));
      return bucket < 0 || bucket >= buckets ? -1 : bucket;
    },
    y: (ms: number) => PAD.top + plotH - heatmapHeight(data, ms) * plotH,
  };
}

/**
 * Draws the heatmap: a column per second (seconds summed when there are more than pixels), one
 * cell per latency bucket, darker for more requests, the second's p50, p95 and p99 over it.
 */
export function drawHeatmap(
  ctx: CanvasRenderingContext2D,
  data: LatencyHeatmap,
  points: readonly TimeseriesPoint[],
  size: { width: number; height: number },
  colours: HeatmapColours,
): void {
  const { width, height } = size;
  ctx.clearRect(0, 0, width, height);
  const scale = heatmapScale(data, width, height);
  const buckets = data.edgesMs.length - 1;
  const cellH = scale.plotH / buckets;
  const { perColumn, columns, most } = heatmapColumns(data, scale.plotW);
  const columnW = scale.cellW * perColumn;
  ctx.fillStyle = colours.accent;
  for (const { column, counts } of columns) {
    const left = scale.x(column * perColumn);
    counts.forEach((count, bucket) => {
      if (count === 0) return;
      ctx.globalAlpha = heatmapOpacity(count, most);
      ctx.fillRect(left, PAD.top + scale.plotH - (bucket + 1) * cellH, Math.max(1, columnW - 0.5), cellH);
    });
  }
  ctx.globalAlpha = 1;
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = colours.muted;
  ctx.strokeStyle = colours.grid;
  ctx.lineWidth = 1;
  // Latency labels: every eighth bucket's lower bound, and the top.
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (let bucket = 0; bucket <= buckets; bucket += 8) {
    const ms = data.edgesMs[bucket];
    const y = scale.y(ms);
    ctx.fillText(`${Number(ms.toPrecision(2))} ms`, PAD.left - 6, y);
    ctx.beginPath();
    ctx.moveTo(PAD.left, y);
    ctx.lineTo(PAD.left - 3, y);
    ctx.stroke();
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const last = data.seconds.length ? data.seconds[data.seconds.length - 1] + 1 : 1;
  for (const t of axisTicks(last, SECOND_TICKS, 6)) {
    if (t > last) continue;
    // The last label kept inside the canvas: it may sit at the plot's right edge.
    const label = formatElapsed(t);
    const x = Math.min(scale.x(t), width - ctx.measureText(label).width / 2 - 1);
    ctx.fillText(label, x, height - PAD.bottom + 6);
  }
  for (const key of ["p50", "p95", "p99"] as const) {
    ctx.strokeStyle = colours.lines[key];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let drawing = false;
    for (const point of points) {
      const ms = point[key];
      if (ms === null || ms === undefined || ms <= 0) {
        drawing = false;
        continue;
      }
      const x = scale.x(point.t) + scale.cellW / 2;
      if (drawing) ctx.lineTo(x, scale.y(ms));
      else ctx.moveTo(x, scale.y(ms));
      drawing = true;
    }
    ctx.stroke();
  }
}
