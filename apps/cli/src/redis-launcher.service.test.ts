import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisAnswers } from "@volley/master";
import { describe, expect, it } from "vitest";
import { UsageError } from "./cli-error.js";
import { ensureRedis, freePort } from "./redis-launcher.js";

describe("ensureRedis", () => {
  it("uses a Redis that answers, as it is", async () => {
    const redis = await ensureRedis({ dataDir: tmpdir(), defaultUrl: "redis://127.0.0.1:6379" });
    expect(redis).toMatchObject({ url: "redis://127.0.0.1:6379", private: false });
  });

  it("starts a private, append-only redis-server when none answers, and stops it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "volley-private-redis-"));
    const silent = `redis://127.0.0.1:${await freePort()}`;
    const saved = process.env.REDIS_URL;
    delete process.env.REDIS_URL;
    try {
      const redis = await ensureRedis({ dataDir, defaultUrl: silent });
      expect(redis.private).toBe(true);
      expect(await redisAnswers(redis.url)).toBe(true);
      // A second process in the same data folder shares it (one server per append-only files).
      const second = await ensureRedis({ dataDir, defaultUrl: silent });
      expect(second).toMatchObject({ url: redis.url, private: false });
      await second.stop();
      expect(await redisAnswers(redis.url)).toBe(true);
      await redis.stop();
      expect(await redisAnswers(redis.url)).toBe(false);
      expect(existsSync(join(dataDir, "redis", "appendonlydir"))).toBe(true);
    } finally {
      if (saved !== undefined) process.env.REDIS_URL = saved;
    }
  });

  it("says that nothing answers at the named Redis, and how to start one there", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const error = await ensureRedis({ url, dataDir: tmpdir() }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UsageError);
    // redis-server is installed here: the advice is to start it on that port, not to install it.
    expect((error as Error).message).toBe(
      `nothing answers at ${url} (REDIS_URL). Start Redis there (\`redis-server --port ${port}\`), or unset REDIS_URL to let Volley use 127.0.0.1:6379 or start a private one.`,
    );
  });
});
