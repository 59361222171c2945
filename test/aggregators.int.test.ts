import type { RunningMaster } from "@volley/master";
import { AGGREGATOR_GROUP, aggregatorStreamKey, aggregatorsKey, type RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestStats } from "./support/fake-worker.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import {
  type CliProcess,
  hold,
  isolatedSetup,
  killAll,
  sendJson,
  spawnCli,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
} from "./support/processes.js";
import { TestRedis } from "./support/redis-server.js";
import { SimulatedFleet } from "./support/simulated-fleet.js";
import { startTargetServer } from "./support/target-server.js";

// Two levels of merging must count every request exactly once, whatever dies: real `volley
// aggregator` processes (killed with SIGKILL), an in-process master, hundreds of simulated workers.
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
let master: RunningMaster;
let prefix: string;
beforeAll(async () => {
  master = await startTestMaster({ startDelayMs: 500 });
  prefix = master.services.config.queuePrefix;
});
afterEach(() => killAll());
afterAll(async () => {
  await master?.close();
  redis.disconnect();
});

function startAggregator(partition: string, queuePrefix = prefix, extra: string[] = []): CliProcess {
  return spawnCli(
    ["aggregator", "--prefix", queuePrefix, "--partition", partition, "--window-ms", "300", ...extra],
    { VOLLEY_LOG_LEVEL: "info" },
  );
}

async function waitForAggregators(...partitions: string[]): Promise<void> {
  await waitForAggregatorsOf(prefix, partitions);
}

async function waitForAggregatorsOf(queuePrefix: string, partitions: string[]): Promise<void> {
  await waitFor(
    async () => {
      const live = await redis.zrangebyscore(aggregatorsKey(queuePrefix), Date.now() - 5000, "+inf");
      return partitions.every((p) => live.includes(p));
    },
    { what: `aggregators ${partitions.join(", ")} to beat`, timeoutMs: 20_000 },
  );
}

async function metric(name: string, masterUrl = master.url): Promise<number> {
  const text = await (await fetch(`${masterUrl}/metrics`)).text();
  return Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name} `))
      ?.split(" ")[1] ?? Number.NaN,
  );
}

describe("aggregators", () => {
  it("keep 200 workers' report exact to the request: one of a partition's two killed, another partition's workers moved when it dies", async () => {
    // Two processes consume partition agg-a (as a Deployment's replicas do), one agg-b.
    const a1 = startAggregator("agg-a");
    const a2 = startAggregator("agg-a");
    let b = startAggregator("agg-b");
    await waitForAggregators("agg-a", "agg-b");
    const fleet = await SimulatedFleet.connect(master.url, prefix, 200);
    try {
      await waitFor(() => master.services.registry.ready().length >= 200, { what: "200 ready workers" });
      const created = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name: "aggregated",
          target: "http://127.0.0.1:9",
          load: { executor: "constant-vus", vus: 200, duration: "2m" },
          requests: [{ name: "hello", path: "/hello" }],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(() => fleet.workers.every((w) => w.runId === runId), { what: "every worker in the run" });
      const routes = fleet.workers.map((w) => w.route);
      // Split evenly over the two live aggregators.
      expect(routes.filter((r) => r === "agg-a")).toHaveLength(100);
      expect(routes.filter((r) => r === "agg-b")).toHaveLength(100);

      const seconds = 14;
      let expected = 0;
      const countOf = (index: number, second: number) => (index % 7) + second + 1;
      const push = async (second: number) => {
        await fleet.push(
          second,
          (w) => [requestStats("hello", countOf(fleet.workers.indexOf(w), second))],
          second === seconds - 1,
        );
        expected += fleet.workers.reduce((sum, _, i) => sum + countOf(i, second), 0);
      };
      for (let second = 0; second < 4; second++) {
        await push(second);
        await hold(400);
      }
      // One of agg-a's processes dies holding a second's batches; the other takes them over. The
      // two take turns reading (Redis serves blocked readers in order), so within two seconds
      // the first one holds a second.
      const heldByA1 = async () => {
        const [, , , consumers] = (await redis.xpending(
          aggregatorStreamKey(prefix, "agg-a"),
          AGGREGATOR_GROUP,
        )) as [number, string, string, Array<[string, string]> | null];
        return (consumers ?? []).some(
          ([name, count]) => name.includes(`-${a1.child.pid}-`) && Number(count) > 0,
        );
      };
      let killedAt = 4;
      for (; ; killedAt++) {
        await push(killedAt);
        const held = await waitFor(async () => ((await heldByA1()) ? "a1" : null), {
          what: "agg-a's first process to hold a second",
          timeoutMs: 1000,
          intervalMs: 5,
        }).catch(() => null);
        if (held) break;
        if (killedAt === 6) throw new Error("agg-a's first process never held a second");
        await hold(400);
      }
      a1.signal("SIGKILL");
      await a1.exited;
      for (let second = killedAt + 1; second < 8; second++) {
        await push(second);
        await hold(400);
      }
      // agg-b dies for good: once it stops beating its workers are moved to agg-a.
      b.signal("SIGKILL");
      await b.exited;
      let second = 8;
      const moved = fleet.workers.filter((w) => w.route === "agg-b");
      while (second < seconds - 2) {
        await push(second++);
        await hold(1000);
        if (moved.every((w) => w.route === "agg-a")) break;
      }
      await waitFor(() => moved.every((w) => w.route === "agg-a" && w.reroutes === 1), {
        what: "agg-b's workers moved to agg-a",
        timeoutMs: 30_000,
      });
      while (second < seconds) await push(second++);
      // What agg-b held or had queued waits for a replacement of agg-b.
      b = startAggregator("agg-b");
      const run = await waitForRunEnd<RunDetail>(master.url, runId, 90_000);
      // agg-a's other process got the batches the killed one held (agg-b's found them queued).
      // (It may come after the run ended: a group the killed one had sent ends nothing when taken over.)
      await waitFor(() => /took over batches held by an aggregator that stopped/.test(a2.output.join("")), {
        what: "agg-a's other process to take over the killed one's batches",
        timeoutMs: 30_000,
      });
      expect(run.status).toBe("finished");
      expect(run.summary?.total.requests).toBe(expected);
      for (const [index, worker] of fleet.workers.entries()) {
        const row = run.workers.find((w) => w.workerId === worker.workerId);
        let requests = 0;
        for (let s = 0; s < seconds; s++) requests += countOf(index, s);
        expect(row?.requests).toBe(requests);
      }
      // The master merged groups, far fewer than the workers' batches.
      const groups = await metric("volley_aggregator_groups_merged_total");
      expect(groups).toBeGreaterThan(0);
      expect(groups).toBeLessThan((200 * seconds) / 10);
    } finally {
      await fleet.close();
    }
  });

  it("carry a real worker's batches through a Redis of their own: master, worker and aggregator processes, the report equal to the server's count", async () => {
    const target = await startTargetServer();
    const intake = await TestRedis.start();
    try {
      const setup = isolatedSetup();
      const masterProcess = await startMasterProcess(setup);
      startAggregator("solo", setup.queuePrefix, ["--intake-redis", intake.url]);
      await waitForAggregatorsOf(setup.queuePrefix, ["solo"]);
      await startWorkerProcess(masterProcess.url, { name: "alpha", threads: 2 });
      const created = await sendJson("POST", `${masterProcess.url}/api/runs`, {
        scenario: {
          name: "through an aggregator",
          target: target.url,
          load: { executor: "constant-vus", vus: 4, duration: "3s" },
          requests: [{ name: "hello", path: "/hello" }],
          thinkTime: "2ms",
        },
      });
      const run = await waitForRunEnd<RunDetail>(masterProcess.url, created.body.id as string);
      expect(run.status).toBe("finished");
      expect(run.summary?.total.requests).toBe(target.total());
      expect(run.summary?.total.requests).toBeGreaterThan(100);
      expect(run.workers[0].requests).toBe(target.total());
      // Every batch came through the aggregator: one group per second (or two, split by the window).
      const groups = await metric("volley_aggregator_groups_merged_total", masterProcess.url);
      const merged = await metric("volley_batches_merged_total", masterProcess.url);
      expect(groups).toBeGreaterThanOrEqual(4);
      expect(merged).toBe(groups);
      // The worker appended its batches in the partition's Redis, not the master's.
      const intakeClient = new Redis(intake.url);
      const stream = aggregatorStreamKey(setup.queuePrefix, "solo");
      expect(await intakeClient.exists(stream)).toBe(1);
      // Every entry acknowledged and deleted: the aggregator flushes its acknowledgements every
      // 100 ms, so the last ones may still be on their way when the run reads as ended.
      await waitFor(async () => (await intakeClient.xlen(stream)) === 0, {
        what: "every entry of the partition's stream acknowledged and deleted",
        timeoutMs: 10_000,
      });
      expect(await redis.exists(stream)).toBe(0);
      intakeClient.disconnect();
    } finally {
      await target.close();
      await intake.stopServer();
    }
  });

  it("lose nothing when the only aggregator is killed mid-run: what its stream held is merged by the master", async () => {
    const target = await startTargetServer();
    try {
      const setup = isolatedSetup();
      const masterProcess = await startMasterProcess(setup);
      const solo = startAggregator("only", setup.queuePrefix);
      await waitForAggregatorsOf(setup.queuePrefix, ["only"]);
      await startWorkerProcess(masterProcess.url, { name: "alpha" });
      await startWorkerProcess(masterProcess.url, { name: "beta" });
      const created = await sendJson("POST", `${masterProcess.url}/api/runs`, {
        scenario: {
          name: "aggregator gone",
          target: target.url,
          load: { executor: "constant-vus", vus: 4, duration: "16s" },
          requests: [{ name: "hello", path: "/hello" }],
          thinkTime: "5ms",
        },
      });
      expect(created.status).toBe(201);
      await waitFor(() => target.total() > 300, { what: "load to flow" });
      solo.signal("SIGKILL");
      const run = await waitForRunEnd<RunDetail>(masterProcess.url, created.body.id as string, 90_000);
      expect(masterProcess.output.join("")).toContain("batches left in a dead aggregator's stream merged");
      expect(run.status).toBe("finished");
      expect(run.summary?.total.requests).toBe(target.total());
      expect(run.warnings.filter((w) => w.kind === "worker-lost" || w.kind === "lost-batches")).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("refuse a bad partition or intake with exit code 2, naming the option", async () => {
    const partition = spawnCli(["aggregator", "--partition", "a b"]);
    expect(await partition.exited).toBe(2);
    expect(partition.output.join("")).toMatch(/partition "a b" must be letters, digits, - or _/);
    const intake = spawnCli(["aggregator", "--partition", "p", "--intake-redis", "http://x"]);
    expect(await intake.exited).toBe(2);
    expect(intake.output.join("")).toMatch(
      /intake Redis "http:\/\/x" must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it("route nothing to a partition id or intake URL in Redis that a worker would refuse", async () => {
    const now = Date.now();
    await redis.zadd(aggregatorsKey(prefix), now, "bad id", now, "good-id");
    await redis.hset(`${prefix}:aggregator-intakes`, "good-id", "not a url");
    try {
      const live = await master.services.consumers.liveAggregators();
      expect([...live]).toEqual(expect.arrayContaining([["good-id", null]]));
      expect(live.has("bad id")).toBe(false);
    } finally {
      await redis.zrem(aggregatorsKey(prefix), "bad id", "good-id");
    }
  });

  it("route a worker that joins by rebalance through the live aggregator; the report stays exact", async () => {
    const target = await startTargetServer();
    const early = await startTestWorker(master, { name: "early" });
    let late: WorkerNode | null = null;
    try {
      startAggregator("joiners");
      await waitForAggregators("joiners");
      await waitFor(async () => (await master.services.consumers.liveAggregators()).has("joiners"), {
        what: "the master to see the joiners' partition",
      });
      const created = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name: "joined",
          target: target.url,
          load: { executor: "constant-vus", vus: 4, duration: "6s" },
          requests: [{ name: "hello", path: "/hello" }],
          thinkTime: "20ms",
        },
      });
      const runId = created.body.id as string;
      const routeOf = (name: string) =>
        master.services.registry.list().find((w) => w.name === name)?.aggregator;
      await waitFor(() => routeOf("early") === "joiners", {
        what: "the first worker routed",
        timeoutMs: 10_000,
      });
      late = await startTestWorker(master, { name: "late" });
      const answer = await sendJson("POST", `${master.url}/api/runs/${runId}/rebalance`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      await waitFor(() => routeOf("late") === "joiners", { what: "the joiner routed", timeoutMs: 10_000 });
      const run = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
      expect(run.status).toBe("finished");
      expect(run.summary?.total.requests).toBe(target.total());
      const rows = Object.fromEntries(run.workers.map((w) => [w.name, w]));
      expect(rows.late?.requests).toBeGreaterThan(0);
      expect((rows.early?.requests ?? 0) + (rows.late?.requests ?? 0)).toBe(target.total());
    } finally {
      await late?.shutdown(3000);
      await early.shutdown(3000);
      await target.close();
    }
  });
});
