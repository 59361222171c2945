import type { TimeseriesPoint } from "./runs.js";

/**
 * A part's points (one scenario's) on the whole run's seconds: a second it sent nothing in has
 * no point of its own and reads as zero, so its chart lines up with the run's (VUs stay the run's).
 */
export function onRunSeconds(
  run: readonly TimeseriesPoint[],
  own: readonly TimeseriesPoint[],
): TimeseriesPoint[] {
  const byT = new Map(own.map((p) => [p.t, p]));
  return run.map(
    (p) => byT.get(p.t) ?? { t: p.t, rps: 0, errorsPerSec: 0, vus: p.vus, p50: null, p95: null, p99: null },
  );
}
