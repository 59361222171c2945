import type { Database } from "@volley/db";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AuditLog } from "./access/audit-log.js";
import type { ResolvedOidc } from "./access/oidc-config.js";
import type { TokenStore } from "./access/token-store.js";
import type { BatchIntake } from "./pipeline/batch-intake.js";
import type { StatsConsumers } from "./pipeline/stats-consumers.js";
import type { StatsPipeline } from "./pipeline/stats-pipeline.js";
import type { RunScheduler } from "./runs/run-scheduler.js";
import type { SecondsRetention } from "./runs/seconds-retention.js";
import type { ScheduleRunner } from "./schedules/schedule-runner.js";
import type { LocalWorkers } from "./workers/local-workers.js";
import type { WorkerRegistry } from "./workers/worker-registry.js";
import type { LiveHub } from "./ws/live-hub.js";

/** Settings the routes read. */
export interface MasterConfig {
  version: string;
  /** Token workers (and, off loopback, API clients) must present; undefined when none is set. */
  token: string | undefined;
  /** The API and dashboard answer only with the token (one is set). */
  apiTokenRequired: boolean;
  /** Address the API listens on, and the worker listener's when it has its own. */
  listenHost: string;
  workerListenHost: string | null;
  /** Host names the master answers besides its loopback names (`--allowed-hosts`). */
  allowedHosts: string[];
  /** URL workers use to reach the master, for the "add a worker" command. */
  workerUrl: string;
  heartbeatIntervalMs: number;
  redisUrlForWorkers: string | null;
  queuePrefix: string;
  /** Built dashboard files, or null when they are missing. */
  webRoot: string | null;
  /** Largest API request body in bytes. */
  bodyLimit: number;
  /** Longest an HTTP request may take to arrive whole, ms. */
  requestTimeoutMs: number;
  /** Certificate and key when the master serves HTTPS/WSS. */
  tls: { cert: string; key: string } | undefined;
  /** Days per-second statistics of finished runs are kept (0: forever). */
  keepSecondsDays: number;
  /** Sign-in through an OpenID provider, when configured. */
  oidc: ResolvedOidc | undefined;
}

/** Everything the HTTP and WebSocket layer uses, built once by startMaster. */
export interface Services {
  config: MasterConfig;
  log: Logger;
  db: Database;
  redis: Redis;
  registry: WorkerRegistry;
  scheduler: RunScheduler;
  /** Drops old per-second statistics; says which runs no longer have them. */
  retention: SecondsRetention;
  pipeline: StatsPipeline;
  intake: BatchIntake;
  consumers: StatsConsumers;
  live: LiveHub;
  localWorkers: LocalWorkers;
  /** Personal API tokens and worker join tokens. */
  tokens: TokenStore;
  /** Who changed what (`GET /api/audit`). */
  audit: AuditLog;
  /** Saved tests on cron expressions. */
  schedules: ScheduleRunner;
}
