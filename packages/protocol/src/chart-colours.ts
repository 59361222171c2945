// The colours lines are drawn in, for the dashboard's charts and the HTML report's alike: a
// percentile is the same colour wherever it is drawn.

/** Each summary percentile's line. */
export const PERCENTILE_COLOURS = { p50: "#188038", p95: "#e37400", p99: "#d93025" } as const;

/** Lines of several things side by side (each request's), in turn. */
export const LINE_COLOURS = [
  "#3b6fd8",
  "#e37400",
  "#188038",
  "#d93025",
  "#8e44ad",
  "#00838f",
  "#ad1457",
  "#6d4c41",
];

/** The two runs of a comparison: A solid, B dashed, in these colours on every chart and key. */
export const COMPARE_COLOURS = { a: "#3b6fd8", b: "#e37400" } as const;

/** What a line means, the same colour on every chart: throughput, errors, VUs, a rate planned, a baseline. */
export const MEASURE_COLOURS = {
  throughput: "#3b6fd8",
  errors: "#d93025",
  vus: "#8e44ad",
  planned: "#8e44ad",
  baseline: "#7a7a7a",
} as const;
