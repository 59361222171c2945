/**
 * Largest of `values` (or `floor` when there are none or all are smaller). A loop, not
 * `Math.max(...values)`: spreading passes every value as an argument and overflows the stack
 * past about 125,000 of them (a 35-hour run at one point a second).
 */
export function maxOf(values: Iterable<number>, floor = Number.NEGATIVE_INFINITY): number {
  let max = floor;
  for (const value of values) if (value > max) max = value;
  return max;
}

/** Keeps at most `limit` points of a series for drawing: each bucket's first and extreme points. */
export function downsample<T>(points: readonly T[], limit: number, value: (point: T) => number): T[] {
  if (points.length <= limit) return [...points];
  const buckets = Math.max(1, Math.floor(limit / 2));
  const size = points.length / buckets;
  const out: T[] = [];
  for (let b = 0; b < buckets; b++) {
    const start = Math.floor(b * size);
    const end = Math.min(points.length, Math.floor((b + 1) * size));
    let peak = start;
    for (let i = start + 1; i < end; i++) if (value(points[i]) > value(points[peak])) peak = i;
    out.push(points[start]);
    if (peak !== start) out.push(points[peak]);
  }
  return out;
}
