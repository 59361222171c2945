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

  it("says how to get Redis when the named one does not answer", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const error = await ensureRedis({ url, dataDir: tmpdir() }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain("apt-get install redis-server");
    expect((error as Error).message).toContain("docker run");
  });
});
