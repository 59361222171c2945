import { createServer } from "node:net";
import type { StatsBatch } from "@volley/protocol";
import { statsQueueName } from "@volley/protocol";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { StatsPublisher } from "./stats-publisher.js";

function batch(seq: number): StatsBatch {
  return {
    runId: "r",
    workerId: "w",
    seq,
    second: seq,
    final: false,
    vus: 1,
    dropped: 0,
    lostBatches: 0,
    elapsedMs: seq * 1000,
    requests: [],
    sentAt: 0,
  };
}

async function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe("StatsPublisher", () => {
  it("keeps batches while Redis is away, dropping the oldest past the bound and counting them", async () => {
    const publisher = new StatsPublisher({
      redisUrl: `redis://127.0.0.1:${await unusedPort()}`,
      prefix: "test",
      log: pino({ level: "silent" }),
      maxBuffered: 3,
    });
    try {
      for (let seq = 0; seq < 5; seq++) publisher.publish(batch(seq));
      expect(publisher.buffered).toBe(3);
      expect(publisher.lost).toBe(2);
      expect(await publisher.drain(300)).toBe(false);
    } finally {
      await publisher.close();
    }
  });

  it("delivers in order once Redis answers", async () => {
    const { Queue } = await import("bullmq");
    const { Redis } = await import("ioredis");
    const prefix = `pub-test-${process.pid}`;
    const publisher = new StatsPublisher({
      redisUrl: "redis://127.0.0.1:6379",
      prefix,
      log: pino({ level: "silent" }),
    });
    const connection = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
    const queue = new Queue(statsQueueName(batch(0).runId), { connection, prefix });
    try {
      for (let seq = 0; seq < 4; seq++) publisher.publish(batch(seq));
      expect(await publisher.drain(5000)).toBe(true);
      const jobs = await queue.getJobs(["waiting"], 0, 10, true);
      expect(jobs.map((j) => j.data.seq)).toEqual([0, 1, 2, 3]);
      expect(jobs.map((j) => j.id)).toEqual(["r.w.0", "r.w.1", "r.w.2", "r.w.3"]);
    } finally {
      await publisher.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});
