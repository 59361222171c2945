/** Number formats used everywhere, so a figure reads the same on every page. */
export {
  formatBytes,
  formatElapsed,
  formatMs,
  NICE_STEPS,
  SECOND_TICKS,
  WHOLE_STEPS,
} from "@volley/protocol";

/** A figure to three significant digits, in the reader's locale: what a legend or readout can be read at. */
export function formatSignificant(value: number): string {
  return Number(value.toPrecision(3)).toLocaleString();
}

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

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "–";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
