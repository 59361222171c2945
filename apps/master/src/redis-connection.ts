import { redact } from "@volley/db";
import { ConfigError } from "@volley/protocol";
import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * The master's Redis connection, answering PING, or a ConfigError naming REDIS_URL. Warns when
 * Redis may evict keys (a batch evicted is a batch lost).
 */
export async function connectRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, enableReadyCheck: true });
  redis.on("error", (error) => log.warn({ err: error.message }, "redis connection error"));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new ConfigError(
      `Redis at ${redact(url)} does not answer (${(error as Error).message}); set REDIS_URL`,
    );
  }
  const policy = await redis.config("GET", "maxmemory-policy").catch(() => null);
  if (Array.isArray(policy) && policy[1] && policy[1] !== "noeviction") {
    log.warn(
      { policy: policy[1] },
      "Redis evicts keys under memory pressure; set maxmemory-policy noeviction so no batch is lost",
    );
  }
  return redis;
}
