import { z } from "zod";
import { withDiscriminatorHint } from "../did-you-mean.js";
import { durationSchema, positiveDurationSchema } from "../duration.js";
import { capacityRates, MAX_CAPACITY_STEPS, sloSchema, stepDurationSchema } from "./capacity.js";

/** The executors of a scenario's `load` block, one schema each, keyed on `executor`. */
export const EXECUTORS = [
  "constant-vus",
  "ramping-vus",
  "per-vu-iterations",
  "shared-iterations",
  "constant-arrival-rate",
  "ramping-arrival-rate",
  "capacity-search",
] as const;
export type ExecutorType = (typeof EXECUTORS)[number];

/** Upper bounds that keep one run from exhausting a fleet by typo. */
export const MAX_VUS = 1_000_000;
export const MAX_RATE = 10_000_000;

const vus = z.int().min(1).max(MAX_VUS);
const stage = z.strictObject({ duration: durationSchema, target: z.number().min(0) });
/** Stages may jump (a 0s stage), but together they must last. */
function stagesOf(target: z.ZodNumber) {
  return z
    .array(stage.extend({ target }))
    .min(1)
    .refine((stages) => stages.reduce((sum, s) => sum + s.duration, 0) > 0, {
      error: "the stages together must last longer than 0",
    });
}
const baseFields = {
  /** How long in-flight iterations may finish after the end; then they are aborted. @defaultValue "5s" */
  gracefulStop: durationSchema.default(5000),
};

/**
 * VU executors: how high `PATCH /api/runs/:id/load` may take the VUs while the run is going (VUs
 * and connections are sized for it at the start). @defaultValue the planned peak
 */
const vuHeadroom = { maxVus: vus.optional() };

export const constantVusSchema = z
  .strictObject({
    executor: z.literal("constant-vus"),
    vus,
    duration: positiveDurationSchema,
    rampUp: durationSchema.default(0),
    ...vuHeadroom,
    ...baseFields,
  })
  .refine((load) => load.maxVus === undefined || load.maxVus >= load.vus, {
    error: "maxVus must be at least vus",
    path: ["maxVus"],
  });

export const rampingVusSchema = z
  .strictObject({
    executor: z.literal("ramping-vus"),
    startVus: z.int().min(0).max(MAX_VUS).default(0),
    stages: stagesOf(z.int().min(0).max(MAX_VUS)),
    ...vuHeadroom,
    ...baseFields,
  })
  .refine(
    (load) =>
      load.maxVus === undefined ||
      load.maxVus >= Math.max(load.startVus, ...load.stages.map((s) => s.target)),
    { error: "maxVus must be at least the highest stage target", path: ["maxVus"] },
  );

export const perVuIterationsSchema = z.strictObject({
  executor: z.literal("per-vu-iterations"),
  vus,
  iterations: z.int().min(1).max(1_000_000_000),
  maxDuration: positiveDurationSchema.default(600_000),
  ...baseFields,
});

/** Exactly `iterations` iterations shared by all VUs across the fleet: a VU that finishes early takes more. */
export const sharedIterationsSchema = z
  .strictObject({
    executor: z.literal("shared-iterations"),
    vus,
    iterations: z.int().min(1).max(1_000_000_000),
    maxDuration: positiveDurationSchema.default(600_000),
    ...baseFields,
  })
  .refine((load) => load.iterations >= load.vus, {
    error: "iterations must be at least vus (each VU runs at least one)",
    path: ["iterations"],
  });

export const constantArrivalRateSchema = z.strictObject({
  executor: z.literal("constant-arrival-rate"),
  rate: z.number().positive().max(MAX_RATE),
  duration: positiveDurationSchema,
  maxVus: vus,
  ...baseFields,
});

export const rampingArrivalRateSchema = z.strictObject({
  executor: z.literal("ramping-arrival-rate"),
  startRate: z.number().min(0).max(MAX_RATE).default(0),
  stages: stagesOf(z.number().min(0).max(MAX_RATE)),
  maxVus: vus,
  ...baseFields,
});

/**
 * An arrival rate raised step by step until a step's merged data breaks the SLO (or maxRate);
 * the master judges each step and ends the run at the breaking point.
 */
export const capacitySearchSchema = z
  .strictObject({
    executor: z.literal("capacity-search"),
    startRate: z.number().positive().max(MAX_RATE),
    step: z.number().positive().max(MAX_RATE).optional(),
    factor: z.number().gt(1).max(100).optional(),
    stepDuration: stepDurationSchema,
    maxRate: z.number().positive().max(MAX_RATE),
    maxVus: vus,
    slo: sloSchema,
    /** Judge a failing step again on the next one before calling it the breaking point. @defaultValue true */
    confirm: z.boolean().default(true),
    ...baseFields,
  })
  .refine((load) => (load.step === undefined) !== (load.factor === undefined), {
    error: "give either step (added each step) or factor (multiplied each step)",
    path: ["step"],
  })
  .refine((load) => load.maxRate >= load.startRate, {
    error: "maxRate must be at least startRate",
    path: ["maxRate"],
  })
  .refine((load) => capacityRates(load).length <= MAX_CAPACITY_STEPS, {
    error: `the search would take more than ${MAX_CAPACITY_STEPS} steps from startRate to maxRate: a larger step or factor`,
    path: ["step"],
  });

export const loadSchema = withDiscriminatorHint(
  "executor",
  z.discriminatedUnion(
    "executor",
    [
      constantVusSchema,
      rampingVusSchema,
      perVuIterationsSchema,
      sharedIterationsSchema,
      constantArrivalRateSchema,
      rampingArrivalRateSchema,
      capacitySearchSchema,
    ],
    {
      error: (issue) =>
        issue.input === undefined ? "is required" : `executor must be one of ${EXECUTORS.join(", ")}`,
    },
  ),
);

export type LoadConfig = z.output<typeof loadSchema>;
export type ConstantVusConfig = z.output<typeof constantVusSchema>;
export type RampingVusConfig = z.output<typeof rampingVusSchema>;
export type PerVuIterationsConfig = z.output<typeof perVuIterationsSchema>;
export type SharedIterationsConfig = z.output<typeof sharedIterationsSchema>;
export type ConstantArrivalRateConfig = z.output<typeof constantArrivalRateSchema>;
export type RampingArrivalRateConfig = z.output<typeof rampingArrivalRateSchema>;
export type CapacitySearchConfig = z.output<typeof capacitySearchSchema>;

/** Planned length of the load phase in ms (without gracefulStop); per-vu-iterations gives its cap. */
export function plannedDurationMs(load: LoadConfig): number {
  switch (load.executor) {
    case "constant-vus":
    case "constant-arrival-rate":
      return load.duration;
    case "ramping-vus":
    case "ramping-arrival-rate":
      return load.stages.reduce((sum, s) => sum + s.duration, 0);
    case "per-vu-iterations":
    case "shared-iterations":
      return load.maxDuration;
    case "capacity-search":
      return capacityRates(load).length * load.stepDuration;
  }
}

/**
 * Most VUs one engine thread runs. Measured on a 2-core machine, 50 connections, a loopback
 * target (docs/scenarios.md): at 100,000 VUs a thread starts them in about a second, its event
 * loop stays under 50 ms late and the worker ~300 MB; at 500,000 the start takes the whole of a
 * short run and the throughput halves; beyond, a run measures mostly its own start.
 */
export const MAX_VUS_PER_THREAD = 100_000;

/** The field a plan's peak VU count comes from, for error messages. */
export function peakVusField(load: LoadConfig): string {
  switch (load.executor) {
    case "constant-vus":
      return load.maxVus === undefined ? "load.vus" : "load.maxVus";
    case "per-vu-iterations":
    case "shared-iterations":
      return "load.vus";
    case "ramping-vus":
      return load.maxVus === undefined ? "load.stages" : "load.maxVus";
    case "constant-arrival-rate":
    case "ramping-arrival-rate":
    case "capacity-search":
      return "load.maxVus";
  }
}

/**
 * How many times its planned peak a VU-driven load (constant-vus, ramping-vus) may be raised to
 * mid-run without `load.maxVus`: the VUs are made only when a change asks for them, so the
 * headroom costs nothing until used.
 */
export const VU_HEADROOM = 4;

/**
 * Most VUs a part may run after a load change: `load.maxVus` when given; for constant-vus and
 * ramping-vus, VU_HEADROOM times the planned peak, bounded by one thread's limit (never below the
 * plan); the planned peak for the others (their VU count does not change).
 */
export function vuCeiling(load: LoadConfig): number {
  const planned = peakVus(load);
  if ((load.executor !== "constant-vus" && load.executor !== "ramping-vus") || load.maxVus !== undefined) {
    return planned;
  }
  return Math.max(planned, Math.min(planned * VU_HEADROOM, MAX_VUS_PER_THREAD));
}

/** Most VUs the load plans to use at once (`load.maxVus` when given). */
export function peakVus(load: LoadConfig): number {
  switch (load.executor) {
    case "constant-vus":
      return load.maxVus ?? load.vus;
    case "per-vu-iterations":
    case "shared-iterations":
      return load.vus;
    case "ramping-vus":
      return load.maxVus ?? Math.max(load.startVus, ...load.stages.map((s) => s.target));
    case "constant-arrival-rate":
    case "ramping-arrival-rate":
    case "capacity-search":
      return load.maxVus;
  }
}
