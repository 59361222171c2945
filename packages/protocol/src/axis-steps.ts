// Where an axis puts its ticks, for the dashboard's charts and the HTML report's alike: steps a
// person counts in (1, 2, 5 times a power of ten; whole seconds and minutes for time).

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

/**
 * The ticks of a value axis from 0 to at least `max`: the smallest step of `steps` that needs at
 * most `count` intervals; the axis ends on the tick at or above `max`.
 */
export function axisTicks(max: number, steps: readonly number[] = NICE_STEPS, count = 4): number[] {
  const top = max > 0 ? max : 1;
  const step = steps.find((s) => top / s <= count) ?? steps[steps.length - 1];
  const ticks: number[] = [];
  for (let i = 0; i * step < top + step * 1e-9; i++) ticks.push(Number((i * step).toPrecision(12)));
  if (ticks[ticks.length - 1] < top) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}
