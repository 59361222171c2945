import { z } from "zod";
import { partitionIdSchema, runIdSchema } from "../queues.js";

/** Sent by a worker every second. */
export const workerHeartbeatSchema = z.strictObject({
  type: z.literal("heartbeat"),
  state: z.enum(["ready", "running", "stopping"]),
  runId: runIdSchema.nullable(),
  // Bounded like everything a worker says: a figure past these is not a measurement.
  vus: z.int().min(0).max(10_000_000),
  /** Percent of one core, summed over the process's threads. */
  cpu: z
    .number()
    .min(0)
    .max(100 * 4096),
  machineCpu: z.number().min(0).max(100),
  /** The machine's cores (what machineCpu's 100 % is): tells the worker's own CPU from other processes'. */
  cores: z.int().min(1).max(4096).optional(),
  memoryMb: z
    .number()
    .min(0)
    .max(16 * 1024 * 1024),
  eventLoopDelayMs: z.number().min(0).max(3_600_000),
  /** How far this worker's estimate of the master's clock can be off, ms (half its best round trip). */
  clockUncertaintyMs: z.number().min(0).max(3_600_000).optional(),
  /** An engine thread of the run was lost: blocked (a script that never awaits) and stopped, or died: why. */
  blocked: z.string().max(500).optional(),
  /** The aggregator partition the run's batches go through (absent: the run's queue). */
  aggregator: partitionIdSchema.optional(),
  sentAt: z.number().min(0).max(1e14),
});
export type WorkerHeartbeat = z.infer<typeof workerHeartbeatSchema>;
