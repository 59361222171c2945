import { EngineRunner, type SlicePeriod } from "@volley/engine";
import { StatsAggregate } from "@volley/stats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());

async function run(
  scenario: unknown,
  threads: number,
  partition: Array<{ weights: number[]; index: number }> = [],
) {
  const periods: SlicePeriod[] = [];
  const runner = new EngineRunner({
    scenario,
    partition,
    threads,
    startAtEpochMs: Date.now() + 300,
    workerName: "threads",
    onPeriod: (p) => periods.push(p),
  });
  await runner.ready();
  await runner.done();
  const aggregate = new StatsAggregate();
  for (const p of periods) aggregate.add(p.requests, p.dropped);
  return { runner, periods, aggregate };
}

describe("EngineRunner (worker threads)", () => {
  it("splits VUs over threads, merges their seconds and counts every request once", async () => {
    target.reset();
    const { runner, periods, aggregate } = await run(
      {
        name: "threads",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 7, iterations: 30 },
        requests: [{ path: "/echo?vu={{vu}}" }],
      },
      3,
    );
    expect(runner.threadCount).toBe(3);
    expect(aggregate.total().requests).toBe(210);
    expect(target.total()).toBe(210);
    const vus = new Set(target.log.map((e) => new URL(e.url, "http://x").searchParams.get("vu")));
    expect([...vus].map(Number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(periods.map((p) => p.second)).toEqual(periods.map((_, i) => i));
    expect(periods.at(-1)?.final).toBe(true);
    await waitFor(() => target.connections.open === 0, { what: "every connection closed", timeoutMs: 2000 });
  });

  it("never starts more threads than the slice has VUs, and validates the scenario at its edge", async () => {
    const { runner, aggregate } = await run(
      {
        name: "one",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
        requests: [{ path: "/" }],
      },
      4,
    );
    expect(runner.threadCount).toBe(1);
    expect(aggregate.total().requests).toBe(2);
    expect(
      () =>
        new EngineRunner({
          scenario: { name: "" },
          partition: [],
          threads: 1,
          startAtEpochMs: 0,
          workerName: "x",
          onPeriod: () => {},
        }),
    ).toThrow(/invalid scenario/);
  });
});
