import { z } from "zod";
import { partitionStepSchema } from "../plan/partition.js";
import { runIdSchema } from "../queues.js";
import { MAX_RATE, MAX_VUS } from "../scenario/load.js";
import { grantedRowsSchema } from "./row-handover.js";

/** Most load changes one run keeps (each is a step of every thread's rate schedule). */
export const MAX_LOAD_CHANGES = 200;

const knobs = {
  /** VUs of the whole run (VU executors). */
  vus: z.int().min(0).max(MAX_VUS).optional(),
  /** Iterations per second of the whole run (arrival-rate executors). */
  rate: z.number().min(0).max(MAX_RATE).optional(),
};
const oneKnob = (value: { vus?: number; rate?: number }) =>
  (value.vus === undefined) !== (value.rate === undefined);
const oneKnobError = { error: "give either vus or rate" };

/** `PATCH /api/runs/:id/load`: the whole run's new VUs or rate, for one of `scenarios:` if named. */
export const loadPatchSchema = z
  .strictObject({ ...knobs, scenario: z.string().min(1).max(200).optional() })
  .refine(oneKnob, oneKnobError);
export type LoadPatch = z.infer<typeof loadPatchSchema>;

/**
 * A change as the master decides it: the whole run's value for one part from `atMs` (ms since
 * the run's start) until `untilMs` (the end of the current ramp stage; null: the end of the
 * load). Every thread takes its share through its partition, as it does of the planned load.
 */
export const loadChangeSchema = z
  .strictObject({
    part: z.int().min(0).max(500),
    ...knobs,
    atMs: z
      .number()
      .min(0)
      .max(366 * 86_400_000),
    untilMs: z
      .number()
      .min(0)
      .max(366 * 86_400_000)
      .nullable(),
  })
  .refine(oneKnob, oneKnobError);
export type LoadChange = z.infer<typeof loadChangeSchema>;

/** Master → worker: apply a load change to the running run. */
export const changeLoadSchema = z.strictObject({
  type: z.literal("change-load"),
  runId: runIdSchema,
  change: loadChangeSchema,
});
export type ChangeLoad = z.infer<typeof changeLoadSchema>;

/** A change's moment as a `LoadChangeRecord` keeps it: seconds since the start, to 0.1 s. */
export function recordedAt(atMs: number): number {
  return Math.round(atMs / 100) / 10;
}

/** A change as the run keeps it (`loadChanges` of a run): `at` in seconds since its start. */
export interface LoadChangeRecord {
  at: number;
  vus?: number;
  rate?: number;
  scenario?: string;
  /** A rebalance: the workers the run has from `at` on. */
  workers?: number;
  /** A rebalance: the unused rows of each unique feeder handed to the new workers. */
  rows?: Record<string, number>;
  /** Who made the change. */
  by?: string;
}

/** Master → worker in a run: from `atMs` on, this worker's share of the load is `workerStep`. */
export const rebalanceRunSchema = z.strictObject({
  type: z.literal("rebalance"),
  runId: runIdSchema,
  atMs: z
    .number()
    .min(0)
    .max(366 * 86_400_000),
  workerStep: partitionStepSchema,
});
export type RebalanceRun = z.infer<typeof rebalanceRunSchema>;

/**
 * What a worker joining a running run is told besides its slice: from when its share counts,
 * the load changes made so far (applied as the others applied them), and where its VU numbers
 * start (after every number the run has used).
 */
export const joinRunSchema = z.strictObject({
  atMs: z
    .number()
    .min(0)
    .max(366 * 86_400_000),
  changes: z.array(loadChangeSchema).max(MAX_LOAD_CHANGES),
  vuNumberOffset: z.int().min(0).max(1e12),
  /** The unused rows of the run's unique feeders handed to this worker (see `release-rows`). */
  rows: grantedRowsSchema.optional(),
});
export type JoinRun = z.infer<typeof joinRunSchema>;
