import { z } from "zod";
import { positiveDurationSchema } from "../duration.js";
import { parseThreshold, ThresholdSyntaxError } from "./thresholds.js";

/** Most steps one search takes from startRate to maxRate. */
export const MAX_CAPACITY_STEPS = 100;

/** The SLO each step is judged by: any of p95, p99 (`"<200ms"`), errorRate (`"<1%"`). */
const sloRule = (metric: "p95" | "p99" | "errorRate") =>
  z
    .string()
    .max(100)
    .superRefine((expression, ctx) => {
      try {
        parseThreshold(metric, expression);
      } catch (error) {
        if (!(error instanceof ThresholdSyntaxError)) throw error;
        ctx.addIssue({ code: "custom", message: error.message });
      }
    })
    .optional();

export const sloSchema = z
  .strictObject({
    p95: sloRule("p95"),
    p99: sloRule("p99"),
    errorRate: sloRule("errorRate"),
    /** Judge this request's figures instead of the whole step's. */
    request: z.string().min(1).max(200).optional(),
  })
  .refine((slo) => slo.p95 !== undefined || slo.p99 !== undefined || slo.errorRate !== undefined, {
    error: "give at least one of p95, p99, errorRate",
  });
export type Slo = z.infer<typeof sloSchema>;

/** The step rates of a search: startRate, then + step (or × factor) while under maxRate, then maxRate. */
export function capacityRates(load: {
  startRate: number;
  step?: number;
  factor?: number;
  maxRate: number;
}): number[] {
  const rates: number[] = [];
  let rate = load.startRate;
  while (rate < load.maxRate && rates.length < MAX_CAPACITY_STEPS + 1) {
    rates.push(rate);
    rate = load.step !== undefined ? rate + load.step : rate * (load.factor as number);
  }
  rates.push(load.maxRate);
  return rates;
}

/** A capacity search's step length must be whole seconds: steps are judged on merged seconds. */
export const stepDurationSchema = positiveDurationSchema.refine((ms) => ms % 1000 === 0 && ms >= 2000, {
  error: "must be whole seconds, at least 2s",
});

/** One judged step of a search. */
export const capacityStepSchema = z.object({
  rate: z.number(),
  /** Requests per second the step achieved (the judged request's, with `slo.request`). */
  achievedRps: z.number(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  errorRate: z.number(),
  /** Iterations dropped for want of a free VU (not those due before a thread began: see late-start). */
  dropped: z.number(),
  ok: z.boolean(),
  /** What broke the SLO, when it did. */
  failedOn: z.enum(["p95", "p99", "errorRate", "maxVus", "noData"]).nullable(),
  /** A failing step the next step contradicted: not counted as the breaking point. */
  noise: z.boolean(),
});
export type CapacityStep = z.infer<typeof capacityStepSchema>;

/** `summary.capacity` of a capacity-search run. */
export const capacityResultSchema = z.object({
  /** Highest rate a step sustained within the SLO (null: not even the first). */
  sustainedRate: z.number().nullable(),
  /** The rate of the step that broke the SLO (null: none did). */
  breakingRate: z.number().nullable(),
  limitedBy: z.enum(["p95", "p99", "errorRate", "maxRate", "maxVus", "noData", "stopped"]),
  /** The request the SLO is judged on, or null for the whole step. */
  request: z.string().nullable(),
  steps: z.array(capacityStepSchema),
  /** Length of each step, seconds. */
  stepDurationS: z.number(),
  /** True while the run still climbs (the verdict so far). */
  searching: z.boolean(),
  /** The result in one sentence, as the report shows it. */
  sentence: z.string(),
});
export type CapacityResult = z.infer<typeof capacityResultSchema>;

/**
 * The steps as stairs over the run's seconds, for charts: each step's planned rate, achieved
 * rate and p95 held across its seconds (two corners per step).
 */
export function capacityStairs(result: Pick<CapacityResult, "steps" | "stepDurationS">) {
  const stairs = (value: (step: CapacityStep) => number | null) =>
    result.steps.flatMap(
      (step, i): Array<[number, number | null]> => [
        [i * result.stepDurationS, value(step)],
        [(i + 1) * result.stepDurationS, value(step)],
      ],
    );
  return {
    rate: stairs((s) => s.rate),
    achieved: stairs((s) => s.achievedRps),
    p95: stairs((s) => s.p95),
  };
}

/** A step's SLO verdict as every report words it: "met", "broken: p95", "missed (p95), not confirmed". */
export function stepVerdict(step: CapacityStep): string {
  if (step.ok) return "met";
  return step.noise ? `missed (${step.failedOn}), not confirmed` : `broken: ${step.failedOn}`;
}
