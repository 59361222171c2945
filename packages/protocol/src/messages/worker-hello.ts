import { z } from "zod";
import { workerLabelsSchema } from "../api/worker-labels.js";

/** First message of a worker on `/ws/worker`: who it is, and the run it is in (after a reconnect). */
export const workerHelloSchema = z.strictObject({
  type: z.literal("hello"),
  workerId: z.string().min(1).max(64),
  name: z.string().min(1).max(100),
  host: z.string().max(255),
  threads: z.int().min(1).max(1024),
  cores: z.int().min(1).max(4096),
  version: z.string().max(50),
  pid: z.int().min(0),
  local: z.boolean(),
  activeRunId: z.string().max(64).nullable(),
  /** Its labels (absent from workers of earlier versions: none). */
  labels: workerLabelsSchema.optional(),
  /** The worker's proof that it knows the token (see `auth`), on a socket opened with a nonce. */
  proof: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type WorkerHello = z.infer<typeof workerHelloSchema>;
