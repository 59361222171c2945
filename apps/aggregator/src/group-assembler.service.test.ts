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

function assembler(sent: CombinedBatch[], groupLedger = ledger) {
  return new GroupAssembler({
    partition: "p1",
    ledger: groupLedger,
    windowMs: 30,
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

  it("answers a batch a crashed attempt claimed with that attempt's group, sent again whole, never a new one", async () => {
    // What the crashed aggregator would have sent for a and b (made against a scratch ledger).
    const scratch: CombinedBatch[] = [];
    const scratchGroups = assembler(scratch, new GroupLedger(redis, `${prefix}-x`));
    await Promise.all([batch("a", 0), batch("b", 0)].map((b) => scratchGroups.add(b)));
    const stored = JSON.stringify(scratch[0]);
    // It claimed a and b as one group, with that combined batch, and died before sending it.
    const crashed = await ledger.claim("run-1", "p1", [memberOf("a", 0), memberOf("b", 0)], stored);
    expect(crashed.group).toBe("p1.1");
    // a comes back (to any aggregator of the partition) with c, which nobody claimed.
    const sent: CombinedBatch[] = [];
    const groups = assembler(sent);
    const [a, c] = await Promise.all([groups.add(batch("a", 0)), groups.add(batch("c", 0))]);
    expect(a).toBe("p1.1");
    expect(c).toBe("p1.2");
    const again = sent.find((s) => s.group === "p1.1");
    expect(again?.covers.map((x) => x.workerId)).toEqual(["a", "b"]);
    expect(again?.requests[0].requests).toBe(20);
    expect(sent.find((s) => s.group === "p1.2")?.covers.map((x) => x.workerId)).toEqual(["c"]);
    // b comes back later: its group went already, so b is only acknowledged.
    expect(await groups.add(batch("b", 0))).toBe("p1.1");
    expect(sent).toHaveLength(2);
  });

  it("acknowledges without sending the batches of a group that reached the master before the crash", async () => {
    const { group } = await ledger.claim("run-1", "p1", [memberOf("a", 3), memberOf("b", 3)], "{}");
    await ledger.sent("run-1", group ?? "");
    const sent: CombinedBatch[] = [];
    expect(await assembler(sent).add(batch("a", 3))).toBe(group);
    expect(sent).toEqual([]);
  });

  it("gives the batches back to the queue when the group cannot be sent", async () => {
    const groups = new GroupAssembler({
      partition: "p1",
      ledger,
      windowMs: 10,
      send: async () => {
        throw new Error("redis is away");
      },
      log: pino({ level: "silent" }),
    });
    await expect(groups.add(batch("a", 4))).rejects.toThrow(/redis is away/);
    // The claim stays: the batch, back from the queue, goes with the same group.
    const sent: CombinedBatch[] = [];
    const group = await assembler(sent).add(batch("a", 4));
    expect(sent.map((s) => s.group)).toEqual([group]);
  });

  it("keeps a group's claims until its batches are released, then forgets it", async () => {
    const members = [memberOf("a", 5), memberOf("b", 5)];
    const { group } = await ledger.claim("run-1", "p1", members, "{}");
    await ledger.sent("run-1", group ?? "");
    await ledger.release("run-1", group ?? "", [members[0]]);
    // The released member is free again; the other is still held, so nothing is claimed.
    const again = await ledger.claim("run-1", "p1", members, "{}");
    expect(again.group).toBeNull();
    expect([...again.held.keys()]).toEqual([members[1]]);
    expect(again.held.get(members[1])).toMatchObject({ group, sent: true });
    await ledger.release("run-1", group ?? "", [members[1]]);
    expect(await redis.hexists(`${prefix}:agg:run-1:groups`, group ?? "")).toBe(0);
    expect(await redis.hexists(`${prefix}:agg:run-1:payloads`, group ?? "")).toBe(0);
  });

  it("sends nothing of a run that has ended: its batches are only acknowledged", async () => {
    await redis.set(`${prefix}:agg:run-1:ended`, "1");
    const sent: CombinedBatch[] = [];
    expect(await assembler(sent).add(batch("a", 6))).toBeNull();
    expect(sent).toEqual([]);
    expect(await redis.hexists(`${prefix}:agg:run-1:claims`, memberOf("a", 6))).toBe(0);
  });
});
