import { z } from "zod";

export const WORKER_STATES = ["ready", "running", "stopping", "lost"] as const;
export type WorkerState = (typeof WORKER_STATES)[number];

/** A worker node as `GET /api/workers` lists it. */
export interface WorkerInfo {
  id: string;
  name: string;
  host: string;
  threads: number;
  cores: number;
  version: string;
  state: WorkerState;
  vus: number;
  /** Process CPU, percent of one core times threads (0..100 per core). */
  cpu: number;
  /** Whole-machine CPU, percent (0..100). */
  machineCpu: number;
  memoryMb: number;
  eventLoopDelayMs: number;
  lastSeenAt: string;
  connectedAt: string;
  local: boolean;
  runId: string | null;
  /** True when CPU or event-loop delay says the generator itself may be the bottleneck. */
  saturated: boolean;
  /** The aggregator partition the run's statistics go through (null: straight to the master). */
  aggregator: string | null;
  /** What it was started with (`--label pool=eu`, VOLLEY_LABELS): scenarios pick workers by them. */
  labels: Record<string, string>;
}

export const localWorkersBodySchema = z.strictObject({
  count: z.int().min(1).max(256),
  threads: z.int().min(1).max(256).default(1),
});
export type LocalWorkersBody = z.output<typeof localWorkersBodySchema>;
