/** Number formats shared by the dashboard, the HTML report and the CLI, so a figure reads the same everywhere. */

/** Milliseconds with the precision that matters at their size: 0.42 ms, 12.3 ms, 245 ms, 1.20 s. */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** Bytes in binary (IEC) units, labelled as such: 512 B, 1.5 KiB, 20.3 MiB. */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = value;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${v.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** A count or rate with thousands separators and at most `digits` decimals. */
export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return "–";
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

/** A check's passes among its evaluations, as "87.50 %"; "–" when it was never evaluated. */
export function formatPassRate(check: { passes: number; fails: number }): string {
  const evaluated = check.passes + check.fails;
  return evaluated ? `${((check.passes / evaluated) * 100).toFixed(2)} %` : "–";
}

/** A count and its noun, in the singular for one: "1 request", "12,000 requests". */
export function formatQuantity(count: number, noun: string): string {
  return `${count.toLocaleString("en-US")} ${noun}${count === 1 ? "" : "s"}`;
}
