import { randomBytes } from "node:crypto";
import { aggregatorStreamKey, type StatsBatch } from "@volley/protocol";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { appendToPartition } from "./partition-append.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
afterAll(() => redis.disconnect());

function batch(workerId: string, seq: number): StatsBatch {
  return {
    runId: "run-1",
    workerId,
    seq,
    second: seq,
    final: false,
    vus: 1,
    dropped: 0,
    lostBatches: 0,
    elapsedMs: 0,
    requests: [],
    sentAt: 0,
  };
}

describe("appendToPartition", () => {
  it("appends each worker's seq once: a retry whose first attempt landed adds nothing", async () => {
    const prefix = `test-append-${randomBytes(4).toString("hex")}`;
    const stream = aggregatorStreamKey(prefix, "p");
    expect(await appendToPartition(redis, prefix, "p", batch("a", 0))).toBe(true);
    expect(await appendToPartition(redis, prefix, "p", batch("a", 0))).toBe(false);
    expect(await appendToPartition(redis, prefix, "p", batch("b", 0))).toBe(true);
    expect(await appendToPartition(redis, prefix, "p", batch("a", 1))).toBe(true);
    // Moved to another partition and back: seqs only grow, so nothing old is appended again.
    expect(await appendToPartition(redis, prefix, "q", batch("a", 1))).toBe(false);
    const entries = await redis.xrange(stream, "-", "+");
    expect(entries.map(([, fields]) => JSON.parse(fields[1]).workerId + JSON.parse(fields[1]).seq)).toEqual([
      "a0",
      "b0",
      "a1",
    ]);
    await redis.del(stream, `${prefix}:agg:run-1:appended`);
  });
});
