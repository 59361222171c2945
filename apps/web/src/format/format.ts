/** Number formats used everywhere, so a figure reads the same on every page. */
export { formatBytes, formatMs } from "@volley/protocol";

export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  return Math.round(value).toLocaleString("en-US");
}

export function formatRate(value: number | null | undefined, unit = "req/s"): string {
  if (value === null || value === undefined) return "–";
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

export function formatPercent(ratio: number | null | undefined, digits = 2): string {
  if (ratio === null || ratio === undefined) return "–";
  return `${(ratio * 100).toFixed(digits)} %`;
}

export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m) return `${m}m ${String(rest).padStart(2, "0")}s`;
  return seconds < 10 ? `${Math.max(0, seconds).toFixed(1)}s` : `${rest}s`;
}

/** Tick steps of a time axis, in whole seconds (never 0.1 s for a run that lasted a second). */
export const SECOND_TICKS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 43_200, 86_400,
];

/** Value-axis steps: 1, 2 and 5 times a power of ten (0.001 to 5e9), as a person counts. */
export const NICE_STEPS = Array.from({ length: 13 }, (_, i) => 10 ** (i - 3)).flatMap((p) => [
  p,
  2 * p,
  5 * p,
]);
/** The same for what is counted whole (VUs): no step below 1. */
export const WHOLE_STEPS = NICE_STEPS.filter((step) => step >= 1);

/** A time-axis label: "45s" under a minute, "m:ss" under an hour, "h:mm:ss" beyond. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "–";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
