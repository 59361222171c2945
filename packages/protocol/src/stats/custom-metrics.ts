import { z } from "zod";

/**
 * A script's own metrics (`vu.metrics.trend / counter / rate / gauge`). They travel as request
 * statistics of their own methods and names, so the exact merge (per second, across threads,
 * workers and aggregators) and the stored seconds carry them as they carry requests.
 */
export const METRIC_TYPES = ["trend", "counter", "rate", "gauge"] as const;
export type MetricType = (typeof METRIC_TYPES)[number];
/** A trend's unit: how its values read (`ms` the default). */
export const METRIC_UNITS = ["ms", "bytes", "none"] as const;
export type MetricUnit = (typeof METRIC_UNITS)[number];

export const METRIC_NAME_RE = /^[a-z][a-z0-9_]*$/;
export const MAX_METRIC_NAME = 64;
/** Distinct metric names a run may record (per thread, per batch and per run). */
export const MAX_METRICS_PER_RUN = 200;

/**
 * A trend's value times its unit's scale is what its HDR histogram records (whole numbers from 1
 * to 3.6e9): ms to microseconds, plain numbers to thousandths, bytes as they are (up to 3.6 GB).
 */
export const METRIC_UNIT_SCALE: Readonly<Record<MetricUnit, number>> = { ms: 1000, none: 1000, bytes: 1 };

export interface MetricKind {
  type: MetricType;
  /** A trend's unit; "none" for the other types. */
  unit: MetricUnit;
}

/** The `method` each kind's statistics travel and are stored under (a trend's names its unit). */
const METHOD_KINDS: Readonly<Record<string, MetricKind>> = {
  "TREND:ms": { type: "trend", unit: "ms" },
  "TREND:bytes": { type: "trend", unit: "bytes" },
  "TREND:none": { type: "trend", unit: "none" },
  COUNTER: { type: "counter", unit: "none" },
  RATE: { type: "rate", unit: "none" },
  GAUGE: { type: "gauge", unit: "none" },
};
export const METRIC_METHODS: readonly string[] = Object.keys(METHOD_KINDS);

export function metricMethod(kind: MetricKind): string {
  return kind.type === "trend" ? `TREND:${kind.unit}` : kind.type.toUpperCase();
}

/** The metric kind a statistics method stands for, or null when it is not a metric's. */
export function metricKindOf(method: string): MetricKind | null {
  return Object.hasOwn(METHOD_KINDS, method) ? METHOD_KINDS[method] : null;
}

/**
 * Statistics are keyed by name: a metric's starts with U+0002, which no request name can hold,
 * and says its kind ("\u0002metric:TREND:ms:cart_ms"), so a stored second reads on its own.
 */
const PREFIX = "\u0002metric:";

export function metricStatsName(name: string, kind: MetricKind): string {
  return `${PREFIX}${metricMethod(kind)}:${name}`;
}

/** The metric a statistics name belongs to, with its kind, or null. */
export function metricOfStatsName(statsName: string): { name: string; kind: MetricKind } | null {
  if (!statsName.startsWith(PREFIX)) return null;
  const colon = statsName.lastIndexOf(":");
  const kind = metricKindOf(statsName.slice(PREFIX.length, colon));
  return kind ? { name: statsName.slice(colon + 1), kind } : null;
}

/** Why a metric name cannot be taken, or null. */
export function metricNameProblem(name: string): string | null {
  if (name.length > MAX_METRIC_NAME) return `is longer than ${MAX_METRIC_NAME} characters`;
  return METRIC_NAME_RE.test(name)
    ? null
    : "is not a metric name: lower-case letters, digits and _, starting with a letter";
}

const finite = z.number().refine(Number.isFinite, "is not a finite number");

/** A gauge's figures of a period: the last value set (and when, ms since the epoch), lowest, highest. */
export const gaugeStatsSchema = z.strictObject({
  last: finite,
  atMs: z.number().min(0),
  min: finite,
  max: finite,
});
export type GaugeStats = z.infer<typeof gaugeStatsSchema>;

/** The later of two gauge figures (the higher value on the same millisecond, so merges agree). */
export function laterGauge(a: GaugeStats, b: GaugeStats): GaugeStats {
  const later = b.atMs > a.atMs || (b.atMs === a.atMs && b.last > a.last) ? b : a;
  return { last: later.last, atMs: later.atMs, min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

/** `summary.metrics.NAME`: each type's figures (a trend's in its unit). */
export const metricSummarySchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("trend"),
    unit: z.enum(METRIC_UNITS),
    count: z.number(),
    min: z.number(),
    mean: z.number(),
    max: z.number(),
    p50: z.number(),
    p90: z.number(),
    p95: z.number(),
    p99: z.number(),
    p999: z.number(),
  }),
  z.object({ type: z.literal("counter"), count: z.number(), ratePerSecond: z.number() }),
  z.object({ type: z.literal("rate"), passes: z.number(), fails: z.number(), rate: z.number() }),
  z.object({ type: z.literal("gauge"), last: z.number(), min: z.number(), max: z.number() }),
]);
export type MetricSummary = z.infer<typeof metricSummarySchema>;

/** The trend percentiles a summary gives, in the order reports show them. */
export const TREND_PERCENTILES = ["p50", "p90", "p95", "p99", "p999"] as const;

/**
 * One second of a metric (`GET /api/runs/:id/timeseries` under `metrics`, and the live feed):
 * `count` values added (set, for a gauge); `value` is a trend's p50, a counter's sum, a rate's
 * share of true (0..1) or a gauge's last value; a trend adds p95 and p99, a gauge its min and max.
 */
export interface MetricPoint {
  t: number;
  count: number;
  value: number | null;
  p95?: number | null;
  p99?: number | null;
  min?: number | null;
  max?: number | null;
}
