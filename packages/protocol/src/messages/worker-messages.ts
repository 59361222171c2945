import { z } from "zod";
import { changeLoadSchema, rebalanceRunSchema } from "./change-load.js";
import { clockPingSchema, clockPongSchema } from "./clock-ping.js";
import { errorMessageSchema } from "./error-message.js";
import { masterAuthSchema } from "./master-auth.js";
import { retireSchema } from "./retire.js";
import { releaseRowsSchema, rowsReleasedSchema } from "./row-handover.js";
import { runAcceptedSchema } from "./run-accepted.js";
import { runEndedSchema } from "./run-ended.js";
import { runRejectedSchema } from "./run-rejected.js";
import { startRunSchema } from "./start-run.js";
import { statsRouteSchema } from "./stats-route.js";
import { stopRunSchema } from "./stop-run.js";
import { welcomeSchema } from "./welcome.js";
import { workerHeartbeatSchema } from "./worker-heartbeat.js";
import { workerHelloSchema } from "./worker-hello.js";

/** Everything a worker may send on `/ws/worker`. */
export const workerToMasterSchema = z.discriminatedUnion("type", [
  workerHelloSchema,
  workerHeartbeatSchema,
  clockPingSchema,
  runAcceptedSchema,
  runRejectedSchema,
  runEndedSchema,
  rowsReleasedSchema,
]);
export type WorkerToMaster = z.infer<typeof workerToMasterSchema>;

/** Everything the master may send to a worker. */
export const masterToWorkerSchema = z.discriminatedUnion("type", [
  masterAuthSchema,
  welcomeSchema,
  clockPongSchema,
  startRunSchema,
  statsRouteSchema,
  stopRunSchema,
  changeLoadSchema,
  rebalanceRunSchema,
  releaseRowsSchema,
  retireSchema,
  errorMessageSchema,
]);
export type MasterToWorker = z.infer<typeof masterToWorkerSchema>;

/** Largest WebSocket message the master takes from a worker. */
export const MAX_WORKER_MESSAGE_BYTES = 1024 * 1024;
/**
 * Largest message a worker takes from its master: a start-run carries the feeders' rows (up to
 * 50 MB of files, somewhat more as JSON).
 */
export const MAX_MASTER_MESSAGE_BYTES = 256 * 1024 * 1024;
