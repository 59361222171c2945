import { hostname } from "node:os";
import {
  ConfigError,
  type LogFormat,
  logFormatOf,
  partitionIdSchema,
  REDIS_PREFIX,
  redisUrlOf,
  redisUrlSchema,
} from "@volley/protocol";

export interface AggregatorOptions {
  /** Redis that the master and workers use. @defaultValue REDIS_URL, else redis://127.0.0.1:6379 */
  redisUrl?: string;
  /**
   * A Redis of this partition's own for its stream: its workers append their batches there, so the
   * master's Redis carries groups, not every batch. It must be reachable from the workers at
   * this same URL. @defaultValue VOLLEY_AGGREGATOR_INTAKE_REDIS, else none (the master's Redis)
   */
  intakeRedisUrl?: string | null;
  /** Key prefix of the installation (the master's `queuePrefix`). @defaultValue VOLLEY_QUEUE_PREFIX, else "volley" */
  prefix?: string;
  /**
   * This aggregator's partition: the queue it consumes. It must survive a restart (the
   * replacement consumes what the crashed one left). @defaultValue VOLLEY_AGGREGATOR_PARTITION, else the host name
   */
  partition?: string;
  /** How long a second's group takes batches after its first. @defaultValue 500 */
  windowMs?: number;
  /** Worker batches held at once (each until its group is sent). @defaultValue 5000 */
  concurrency?: number;
  /** @defaultValue VOLLEY_LOG_LEVEL, else "info" */
  logLevel?: string;
  /** JSON lines, or short lines for a person. @defaultValue human on a terminal, else json (VOLLEY_LOG_FORMAT) */
  logFormat?: LogFormat;
}

export type ResolvedAggregatorOptions = Required<AggregatorOptions>;

export function resolveAggregatorOptions(options: AggregatorOptions): ResolvedAggregatorOptions {
  const env = process.env;
  const partition = options.partition ?? env.VOLLEY_AGGREGATOR_PARTITION ?? hostname();
  const parsed = partitionIdSchema.safeParse(partition);
  if (!parsed.success) {
    throw new ConfigError(
      `partition "${partition}" ${parsed.error.issues[0]?.message ?? "is not valid"} (set --partition)`,
    );
  }
  const windowMs = options.windowMs ?? 500;
  if (!Number.isInteger(windowMs) || windowMs < 10 || windowMs > 10_000) {
    throw new ConfigError(`window ${windowMs} ms must be a whole number from 10 to 10000`);
  }
  const intakeRedisUrl = options.intakeRedisUrl ?? env.VOLLEY_AGGREGATOR_INTAKE_REDIS ?? null;
  if (intakeRedisUrl !== null && !redisUrlSchema.safeParse(intakeRedisUrl).success) {
    throw new ConfigError(`intake Redis "${intakeRedisUrl}" must be a redis:// or rediss:// URL`);
  }
  return {
    redisUrl: redisUrlOf(options.redisUrl, env),
    intakeRedisUrl,
    prefix: options.prefix ?? env.VOLLEY_QUEUE_PREFIX ?? REDIS_PREFIX,
    partition,
    windowMs,
    concurrency: options.concurrency ?? 5000,
    logLevel: options.logLevel ?? env.VOLLEY_LOG_LEVEL ?? "info",
    logFormat: logFormatOf(options.logFormat, env),
  };
}
