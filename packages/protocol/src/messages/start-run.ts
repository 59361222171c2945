import { z } from "zod";
import { partitionStepSchema } from "../plan/partition.js";
import { partitionIdSchema, redisUrlSchema, runIdSchema } from "../queues.js";
import { feederTableSchema } from "../scenario/data.js";
import { joinRunSchema } from "./change-load.js";

/** Largest bundle of one script (ES module with its inline source map). */
export const MAX_SCRIPT_BUNDLE_BYTES = 16 * 1024 * 1024;

/** Largest `packedFiles` (base64), well under a master message's limit. */
const MAX_PACKED_BYTES = 128 * 1024 * 1024;

/** Master → worker: run your slice of this scenario, starting at `startAt` (master clock, epoch ms). */
export const startRunSchema = z.strictObject({
  type: z.literal("start-run"),
  runId: runIdSchema,
  /** The scenario as the user wrote it; the worker validates it with the same schema. */
  scenario: z.unknown(),
  partition: z.array(partitionStepSchema).max(4),
  startAt: z.number(),
  /** Every feeder's rows, read by the master (files and inline rows alike). */
  data: z.record(z.string(), feederTableSchema).default({}),
  /** Files multipart bodies send, base64, by the name the scenario gives them. */
  attachments: z.record(z.string(), z.string()).default({}),
  /**
   * `data` and `attachments` as gzip of their JSON, base64 (what the master sends: feeder tables
   * compress several times). The worker unpacks and validates them with `runFilesSchema`.
   */
  packedFiles: z.string().max(MAX_PACKED_BYTES).optional(),
  /** Values of the scenario's `env` names, for this run only (never stored). */
  env: z.record(z.string(), z.string().max(65_536)).default({}),
  /** Set when the worker joins a run already going (`POST /api/runs/:id/rebalance`). */
  join: joinRunSchema.optional(),
  /** The aggregator partition the batches go through; absent: straight into the run's queue. */
  aggregator: partitionIdSchema.optional(),
  /** The Redis of that partition's stream, when it is not the master's. */
  aggregatorRedis: redisUrlSchema.optional(),
});
export type StartRun = z.infer<typeof startRunSchema>;

/** What `packedFiles` holds once unpacked. */
export const runFilesSchema = z.strictObject({
  data: z.record(z.string(), feederTableSchema).default({}),
  attachments: z.record(z.string(), z.string()).default({}),
  /** Each script the scenario names (by its path as written), bundled by the master to one ES module. */
  scripts: z.record(z.string().max(500), z.string().max(MAX_SCRIPT_BUNDLE_BYTES)).default({}),
  /** What each script's setup() returned, as JSON (at most 1 MiB each), by script path. */
  setupData: z.record(z.string().max(500), z.string().max(1024 * 1024)).default({}),
});
export type RunFiles = z.infer<typeof runFilesSchema>;
