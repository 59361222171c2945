import type { Stage } from "./stages.js";

/**
 * When the whole load's iterations are due under an arrival rate. Iteration i (0-based, across
 * all workers) starts when the integral of the rate reaches i, so i = 0 starts at once.
 */
export interface RateProfile {
  /** Length of the load phase in ms; no iteration is scheduled at or after it. */
  readonly durationMs: number;
  /** Iterations scheduled in [0, elapsedMs], capped at the total. */
  dueBy(elapsedMs: number): number;
  /** Scheduled start of iteration i, ms after the run's start (Infinity past the end). */
  timeOf(i: number): number;
}

export function constantRate(ratePerSecond: number, durationMs: number): RateProfile {
  const total = Math.ceil((ratePerSecond * durationMs) / 1000);
  return {
    durationMs,
    dueBy: (elapsedMs) =>
      elapsedMs < 0 ? 0 : Math.min(total, Math.floor((elapsedMs * ratePerSecond) / 1000) + 1),
    timeOf: (i) => (i < total ? (i * 1000) / ratePerSecond : Number.POSITIVE_INFINITY),
  };
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
  const durationMs = startMs;
  const integral = accumulated;
  const total = Math.ceil(integral - 1e-9);

  const accumulatedAt = (elapsedMs: number): number => {
    for (const s of segments) {
      if (elapsedMs < s.startMs + s.durationMs) {
        const t = (elapsedMs - s.startMs) / 1000;
        const slope = (s.toRate - s.fromRate) / (s.durationMs / 1000);
        return s.before + s.fromRate * t + (slope * t * t) / 2;
      }
    }
    return integral;
  };

  return {
    durationMs,
    dueBy: (elapsedMs) =>
      elapsedMs < 0 ? 0 : Math.min(total, Math.floor(accumulatedAt(elapsedMs) + 1e-9) + 1),
    timeOf: (i) => {
      if (i >= total) return Number.POSITIVE_INFINITY;
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
    },
  };
}
