// A latency distribution as HdrHistogram's percentile plot draws it: latency by percentile, the
// percentile axis stretched so that each "nine" (90 %, 99 %, 99.9 %, 99.99 %) gets equal room.

/** One point of a distribution: at `p` percent of requests, `ms` milliseconds or less. */
export interface DistributionPoint {
  p: number;
  ms: number;
}

/** `GET /api/runs/:id/distribution`: the whole run's, and each request's (by the name its statistics are kept under). */
export interface LatencyDistribution {
  total: DistributionPoint[];
  requests: Record<string, DistributionPoint[]>;
}

/** The nines the axis is ticked at, as percent. */
export const DISTRIBUTION_TICKS = [0, 90, 99, 99.9, 99.99] as const;
/** Where the axis ends (a percentile of 99.99 % sits at 4: past it is the maximum). */
export const DISTRIBUTION_AXIS_END = 4.5;

/**
 * The percentiles a distribution is read at: five steps per nine from 0 % to 99.99 %, then the
 * maximum (100 %). Read from a merged HDR histogram each is exact to its 3 significant digits.
 */
export const DISTRIBUTION_PERCENTILES: readonly number[] = [
  ...Array.from({ length: 21 }, (_, i) => Number((100 * (1 - 10 ** (-i / 5))).toPrecision(8))),
  100,
];

/** A percentile's place on the stretched axis: 0 % at 0, 90 % at 1, 99 % at 2, ...; 100 % at its end. */
export function percentileAxis(p: number): number {
  return p >= 100 ? DISTRIBUTION_AXIS_END : -Math.log10(1 - p / 100);
}

/** The percentile at a place on the axis (its inverse, for labels). */
export function axisPercentile(x: number): number {
  return x >= DISTRIBUTION_AXIS_END ? 100 : 100 * (1 - 10 ** -x);
}

/** A percentile as axes and legends write it: "99.9 %", and "max" for 100 %. */
export function percentileLabel(p: number): string {
  return p >= 100 ? "max" : `${Number(p.toPrecision(6))} %`;
}
