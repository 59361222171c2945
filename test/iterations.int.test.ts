import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// Iterations as the report counts them, over two workers of two threads each: shared-iterations
// runs exactly its iterations whatever the spread of VUs, every planned iteration is either run
// or counted as skipped (a unique feeder ran out), and the summary says how many ran and how long.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, threads: 2 });
});
afterAll(() => fleet.close());

async function run(
  scenario: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<RunDetail> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: { name: "iterations", target: fleet.target.url, ...scenario },
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 90_000);
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }));

describe("iterations", () => {
  it.each([1, 3, 5, 7])(
    "shared-iterations: %i VUs over 4 threads run exactly 1,000 iterations, each unique row once",
    async (vus) => {
      fleet.target.reset();
      const report = await run({
        load: { executor: "shared-iterations", vus, iterations: 1000 },
        data: { items: { rows: rows(1000), mode: "unique" } },
        requests: [{ name: "item", path: "/item/{{data.items.id}}" }],
      });
      expect(report.status).toBe("finished");
      const paths = fleet.target.log.map((e) => e.url);
      expect(paths).toHaveLength(1000);
      expect(new Set(paths).size).toBe(1000);
      expect(report.summary.total.requests).toBe(1000);
      expect(report.summary.total.iterations).toBe(1000);
      expect(report.summary.total.skippedIterations).toBeUndefined();
      expect(report.trust.reasons.map((r) => r.kind)).not.toContain("skipped-iterations");
    },
  );

  it("a feeder that runs out: the iterations that could not start are counted, warned and judged", async () => {
    fleet.target.reset();
    const report = await run({
      load: { executor: "per-vu-iterations", vus: 6, iterations: 50 },
      data: { items: { rows: rows(250), mode: "unique" } },
      requests: [{ name: "item", path: "/item/{{data.items.id}}" }],
    });
    expect(report.status).toBe("finished");
    expect(fleet.target.total()).toBe(250);
    expect(report.summary.total.iterations).toBe(250);
    expect(report.summary.total.skippedIterations).toBe(300 - 250);
    const warning = report.warnings.find((w) => w.kind === "skipped-iterations");
    expect(warning).toMatchObject({ count: 50 });
    expect(warning?.message).toContain("50 planned iterations did not run");
    expect(report.trust.verdict).not.toBe("trusted");
    expect(report.trust.reasons.map((r) => r.kind)).toContain("skipped-iterations");
  });

  it("the same with shared-iterations and a script reading the feeder", async () => {
    fleet.target.reset();
    const report = await run(
      {
        load: { executor: "shared-iterations", vus: 5, iterations: 400 },
        data: { items: { rows: rows(333), mode: "unique" } },
        script: "./flow.ts",
      },
      {
        scripts: {
          "flow.ts": [
            'import type { Vu } from "@volley/script";',
            "export default async function (vu: Vu) {",
            "  const row = vu.data.items.next();",
            '  await vu.http.get("/item/" + row.id, { name: "item" });',
            "}",
          ].join("\n"),
        },
      },
    );
    expect(report.status).toBe("finished");
    const paths = fleet.target.log.map((e) => e.url);
    expect(new Set(paths).size).toBe(333);
    expect(paths).toHaveLength(333);
    expect(report.summary.total.iterations).toBe(333);
    expect(report.summary.total.skippedIterations).toBe(400 - 333);
    // Running out is not the script's fault: no script error is counted.
    expect(report.summary.errors).toEqual([]);
  });

  it("iterations and their durations per scenario and in total", async () => {
    fleet.target.reset();
    const report = await run({
      scenarios: {
        browse: {
          load: { executor: "per-vu-iterations", vus: 4, iterations: 10 },
          requests: [
            { name: "home", path: "/slow?ms=20" },
            { name: "hello", path: "/hello" },
          ],
        },
        buy: {
          load: { executor: "shared-iterations", vus: 3, iterations: 25 },
          requests: [{ name: "order", path: "/hello" }],
        },
      },
    });
    expect(report.status).toBe("finished");
    expect(report.summary.total.iterations).toBe(65);
    const scenarios = Object.fromEntries((report.summary.scenarios ?? []).map((s) => [s.name, s]));
    expect(scenarios.browse.iterations).toBe(40);
    expect(scenarios.buy.iterations).toBe(25);
    // A browse iteration waits 20 ms for its first request.
    expect(scenarios.browse.iterationMs?.min).toBeGreaterThanOrEqual(19);
    expect(report.summary.total.iterationMs?.max).toBeGreaterThanOrEqual(19);
    // Iterations are not requests.
    expect(report.summary.total.requests).toBe(105);
    expect(report.summary.requests.map((r) => r.name).sort()).toEqual(["hello", "home", "order"]);
  });

  it("shared-iterations refuses a rebalance and a load change, naming the field", async () => {
    fleet.target.reset();
    const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "fixed",
        target: fleet.target.url,
        load: { executor: "shared-iterations", vus: 1, iterations: 30 },
        requests: [{ name: "slow", path: "/slow?ms=100" }],
      },
    });
    const id = created.body.id as string;
    const change = await sendJson("PATCH", `${fleet.master.url}/api/runs/${id}/load`, { vus: 4 });
    expect(change.status).toBe(400);
    expect(JSON.stringify(change.body)).toContain("shared-iterations has no load to change");
    const rebalance = await sendJson("POST", `${fleet.master.url}/api/runs/${id}/rebalance`, {});
    expect(rebalance.status).toBe(400);
    expect(JSON.stringify(rebalance.body)).toContain("load.executor");
    const report = await waitForRunEnd<RunDetail>(fleet.master.url, id, 30_000);
    expect(fleet.target.counts.get("/slow")).toBe(30);
    expect(report.summary.total.iterations).toBe(30);
  });
});
