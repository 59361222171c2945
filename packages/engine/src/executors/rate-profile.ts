import type { Stage } from "./stages.js";

/**
 * When the whole load's iterations are due under an arrival rate. Iteration i (0-based, across
 * all workers) starts when the integral of the rate reaches i, so i = 0 starts at once.
 */
export interface RateProfile {
  /** Length of the load phase in ms; no iteration is scheduled at or after it. */
  readonly durationMs: number;
  /** The integral of the rate over [0, elapsedMs]: iterations' worth so far (not capped). */
  accumulatedAt(elapsedMs: number): number;
  /** Iterations scheduled in [0, elapsedMs], capped at the total. */
  dueBy(elapsedMs: number): number;
  /** Scheduled start of iteration i, ms after the run's start (Infinity past the end). */
  timeOf(i: number): number;
}

/** A profile from its integral and that integral's inverse (for i below the total). */
function profileOf(
  durationMs: number,
  accumulatedAt: (elapsedMs: number) => number,
  inverse: (i: number) => number,
): RateProfile {
  const total = Math.ceil(accumulatedAt(durationMs) - 1e-9);
  return {
    durationMs,
    accumulatedAt,
    dueBy: (elapsedMs) =>
      elapsedMs < 0 ? 0 : Math.min(total, Math.floor(accumulatedAt(elapsedMs) + 1e-9) + 1),
    timeOf: (i) => (i < total ? inverse(i) : Number.POSITIVE_INFINITY),
  };
}

export function constantRate(ratePerSecond: number, durationMs: number): RateProfile {
  return profileOf(
    durationMs,
    (elapsedMs) => (Math.min(Math.max(elapsedMs, 0), durationMs) * ratePerSecond) / 1000,
    (i) => (i * 1000) / ratePerSecond,
  );
}

interface Segment {
  startMs: number;
  durationMs: number;
  fromRate: number;
  toRate: number;
  /** Iterations accumulated before the segment. */
  before: number;
}

/** Rates that move linearly between stage targets (iterations per second). */
export function rampingRate(startRate: number, stages: readonly Stage[]): RateProfile {
  const segments: Segment[] = [];
  let startMs = 0;
  let rate = startRate;
  let accumulated = 0;
  for (const stage of stages) {
    segments.push({
      startMs,
      durationMs: stage.duration,
      fromRate: rate,
      toRate: stage.target,
      before: accumulated,
    });
    accumulated += ((rate + stage.target) / 2) * (stage.duration / 1000);
    startMs += stage.duration;
    rate = stage.target;
  }
  const integral = accumulated;

  const accumulatedAt = (elapsedMs: number): number => {
    if (elapsedMs <= 0) return 0;
    for (const s of segments) {
      if (elapsedMs < s.startMs + s.durationMs) {
        const t = (elapsedMs - s.startMs) / 1000;
        const slope = (s.toRate - s.fromRate) / (s.durationMs / 1000);
        return s.before + s.fromRate * t + (slope * t * t) / 2;
      }
    }
    return integral;
  };

  return profileOf(startMs, accumulatedAt, (i) => {
    for (const s of segments) {
      const after = s.before + ((s.fromRate + s.toRate) / 2) * (s.durationMs / 1000);
      if (i >= after - 1e-9) continue;
      // Solve before + a*t + b*t^2/2 = i for t (seconds) within the segment.
      const need = i - s.before;
      const slope = (s.toRate - s.fromRate) / (s.durationMs / 1000);
      let t: number;
      if (Math.abs(slope) < 1e-12) t = s.fromRate > 0 ? need / s.fromRate : 0;
      else t = (-s.fromRate + Math.sqrt(Math.max(0, s.fromRate * s.fromRate + 2 * slope * need))) / slope;
      return s.startMs + Math.max(0, t) * 1000;
    }
    return Number.POSITIVE_INFINITY;
  });
}

/**
 * `base` with the rate held at `rate` from `atMs` until `untilMs` (null: the end), then `base`
 * again — a load change made while the run goes. Every thread of every worker applies the same
 * change at the same `atMs`, so the whole run's iteration sequence stays one sequence.
 */
export function withRateOverride(
  base: RateProfile,
  atMs: number,
  rate: number,
  untilMs: number | null,
): RateProfile {
  const end = Math.min(untilMs ?? base.durationMs, base.durationMs);
  const at = Math.min(Math.max(atMs, 0), end);
  const before = base.accumulatedAt(at);
  const added = (rate * (end - at)) / 1000;
  const replaced = base.accumulatedAt(end) - before;
  return profileOf(
    base.durationMs,
    (elapsedMs) => {
      if (elapsedMs < at) return base.accumulatedAt(elapsedMs);
      if (elapsedMs < end) return before + (rate * (elapsedMs - at)) / 1000;
      return base.accumulatedAt(elapsedMs) - replaced + added;
    },
    (i) => {
      if (i < before) return base.timeOf(i);
      // An iteration due exactly at the change starts at it, whatever the new rate (even 0).
      if (i < before + added || i <= before + 1e-9) return rate > 0 ? at + ((i - before) * 1000) / rate : at;
      return base.timeOf(i - added + replaced);
    },
  );
}
