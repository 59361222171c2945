import { randomBytes } from "node:crypto";
import type { CombinedBatch, StatsBatch } from "@volley/protocol";
import { createRecordingHistogram, encodeHistogram } from "@volley/stats";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GroupAssembler } from "./group-assembler.js";
import { GroupLedger, memberOf } from "./group-ledger.js";

// A real Redis: the ledger's claims are Lua scripts, and they are what makes groups exactly-once.
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
let prefix = "";
let ledger: GroupLedger;
afterAll(() => redis.disconnect());
beforeEach(() => {
  prefix = `test-agg-${randomBytes(4).toString("hex")}`;
  ledger = new GroupLedger(redis, prefix);
});

function batch(workerId: string, seq: number, requests = 10): StatsBatch {
  const histogram = createRecordingHistogram();
  for (let i = 0; i < requests; i++) histogram.recordValue(1000 + i);
  return {
    runId: "run-1",
    workerId,
    seq,
    second: seq,
    final: false,
    vus: 2,
    dropped: 1,
    lostBatches: 0,
    elapsedMs: (seq + 1) * 1000,
    requests: [
      {
        name: "home",
        method: "GET",
        requests,
        failures: 0,
        bytesIn: 100,
        bytesOut: 50,
        statusCodes: { 200: requests },
        errors: [],
        latency: { sumUs: 0, minUs: 1000, maxUs: 1000 + requests, histogram: encodeHistogram(histogram) },
      },
    ],
    sentAt: 0,
  };
}

function assembler(sent: CombinedBatch[], partition = "p1") {
  return new GroupAssembler({
    partition,
    ledger,
    windowMs: 30,
    recoveryMs: 500,
    send: async (combined) => {
      sent.push(combined);
    },
    log: pino({ level: "silent" }),
  });
}

describe("GroupAssembler", () => {
  it("sends one combined batch per run and second, covering every batch once", async () => {
    const sent: CombinedBatch[] = [];
    const groups = assembler(sent);
    const results = await Promise.all([
      groups.add(batch("a", 0, 10)),
      groups.add(batch("b", 0, 20)),
      groups.add(batch("a", 1, 5)),
    ]);
    expect(sent).toHaveLength(2);
    const second0 = sent.find((s) => s.second === 0);
    expect(second0?.covers.map((c) => [c.workerId, c.seq, c.requests])).toEqual([
      ["a", 0, 10],
      ["b", 0, 20],
    ]);
    expect(second0?.requests[0].requests).toBe(30);
    expect(second0).toMatchObject({ vus: 4, dropped: 2, partition: "p1" });
    expect(results[0]).toBe(results[1]);
    expect(results[2]).not.toBe(results[0]);
  });

  it("rebuilds the group a crashed attempt claimed, whole and under the same id, never a new one", async () => {
    // The crashed aggregator claimed a and b as one group and died before sending it.
    const crashed = await ledger.claim("run-1", "p1", [memberOf("a", 0), memberOf("b", 0)]);
    expect(crashed.group).toBe("p1.1");
    const sent: CombinedBatch[] = [];
    const groups = assembler(sent);
    // Its batches come back one by one, with a batch nobody claimed yet.
    const a = groups.add(batch("a", 0));
    const c = groups.add(batch("c", 0));
    await c;
    expect(sent.map((s) => s.covers.map((x) => x.workerId))).toEqual([["c"]]);
    const b = groups.add(batch("b", 0));
    expect(await a).toBe("p1.1");
    expect(await b).toBe("p1.1");
    expect(sent[1]).toMatchObject({ group: "p1.1" });
    expect(sent[1].covers.map((x) => x.workerId)).toEqual(["a", "b"]);
    expect(sent[1].requests[0].requests).toBe(20);
  });

  it("acknowledges without sending the batches of a group that reached the master before the crash", async () => {
    const { group } = await ledger.claim("run-1", "p1", [memberOf("a", 3), memberOf("b", 3)]);
    await ledger.sent("run-1", group ?? "");
    const sent: CombinedBatch[] = [];
    const groups = assembler(sent);
    expect(await groups.add(batch("a", 3))).toBe(group);
    expect(sent).toEqual([]);
  });

  it("gives the batches back to the queue when the rest of their group does not come", async () => {
    await ledger.claim("run-1", "p1", [memberOf("a", 4), memberOf("b", 4)]);
    const groups = assembler([]);
    await expect(groups.add(batch("a", 4))).rejects.toThrow(/1 of 2 batches came back/);
  });

  it("keeps a group's claims until its batches are released, then forgets it", async () => {
    const members = [memberOf("a", 5), memberOf("b", 5)];
    const { group } = await ledger.claim("run-1", "p1", members);
    await ledger.sent("run-1", group ?? "");
    await ledger.release("run-1", group ?? "", [members[0]]);
    const again = await ledger.claim("run-1", "p1", members);
    expect(again.group).toBe("p1.2"); // the released member is free again; the other is still held
    expect(again.held.get(members[1])).toMatchObject({ group, sent: true });
    await ledger.release("run-1", group ?? "", [members[1]]);
    expect(await redis.hexists(`${prefix}:agg:run-1:groups`, group ?? "")).toBe(0);
  });
});
