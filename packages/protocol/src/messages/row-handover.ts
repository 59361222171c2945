import { z } from "zod";
import { type RowRange, rowRangeSchema } from "../plan/row-ranges.js";
import { runIdSchema } from "../queues.js";
import { feederNameSchema, MAX_FEEDERS } from "../scenario/data.js";

/** Most ranges of one feeder a worker releases in one answer (its threads keep the rest). */
export const MAX_RELEASED_RANGES = 4096;
/** Most ranges of one feeder a joining worker is granted. */
export const MAX_GRANTED_RANGES = 65_536;

const handoverIdSchema = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** Ranges of rows by unique feeder. */
const rowsByFeeder = (maxRanges: number) =>
  z
    .record(feederNameSchema, z.array(rowRangeSchema).max(maxRanges))
    .refine((rows) => Object.keys(rows).length <= MAX_FEEDERS, {
      error: `at most ${MAX_FEEDERS} feeders`,
    });

/**
 * Master → worker in a run that is taking new workers: give up `share` of the unused rows of
 * each unique feeder, from the end of each thread's list (rows no VU reaches before the others
 * have them), and say which (`rows-released`).
 */
export const releaseRowsSchema = z.strictObject({
  type: z.literal("release-rows"),
  runId: runIdSchema,
  handover: handoverIdSchema,
  share: z.number().gt(0).lt(1),
});
export type ReleaseRows = z.infer<typeof releaseRowsSchema>;

/** Worker → master: the rows its threads gave up (an empty record: none, or not in that run). */
export const rowsReleasedSchema = z.strictObject({
  type: z.literal("rows-released"),
  runId: runIdSchema,
  handover: handoverIdSchema,
  rows: rowsByFeeder(MAX_RELEASED_RANGES),
});
export type RowsReleased = z.infer<typeof rowsReleasedSchema>;

/** What a joining worker is granted: its threads deal these out instead of the start's blocks. */
export const grantedRowsSchema = rowsByFeeder(MAX_GRANTED_RANGES);
export type GrantedRows = Record<string, RowRange[]>;
