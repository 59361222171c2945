import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { MetricPoint, RunDetail, Timeseries } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, cliSandbox } from "./support/cli-sandbox.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

// A script's own metrics (vu.metrics) across two workers of two threads each: known values
// merged exactly, a second type and a bad name refused as the script's errors, thresholds on
// them judged, and `volley run` exiting by them.
let fleet: TestFleet;
let target: TargetServer;
let master: RunningMaster;
let cli: CliSandbox;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, threads: 2 });
  ({ target, master } = fleet);
  cli = cliSandbox("volley-metrics-");
});
afterAll(() => fleet.close());

const VUS = 8;
const ITERATIONS = 5;

// Each VU (numbered 1..8) adds known values each iteration (0..4). VU 1 ends last, 1.5 s after
// the rest (400 ms was not enough on a machine busy installing packages): its gauge value is the fleet's last; then it names a metric badly (a script error).
const METRICS_SCRIPT = `
import type { Vu } from "@volley/script";

export default async function (vu: Vu) {
  await vu.http.get("/hello", { name: "hello" });
  vu.metrics.trend("cart_ms").add(vu.number * 10 + vu.iteration);
  vu.metrics.trend("payload", { unit: "bytes" }).add(5_000_000 + vu.number);
  const orders = vu.metrics.counter("orders");
  orders.add(2);
  orders.add();
  vu.metrics.rate("in_stock").add(vu.iteration % 2 === 0);
  vu.metrics.gauge("queue_depth").set(vu.number * 100 + vu.iteration);
  let refused = "";
  try {
    vu.metrics.counter("cart_ms");
  } catch (error) {
    refused = (error as Error).message;
  }
  vu.check("a second type is refused", refused.includes("already a trend"));
  if (vu.number === 1 && vu.iteration === ${ITERATIONS - 1}) {
    await vu.sleep(1500);
    vu.metrics.gauge("queue_depth").set(-7.5);
    vu.metrics.trend("Bad-Name");
  }
}
`;

function scenario(thresholds: Record<string, string>) {
  return {
    name: "custom-metrics",
    target: target.url,
    load: { executor: "per-vu-iterations", vus: VUS, iterations: ITERATIONS },
    script: "./metrics.ts",
    thresholds,
  };
}

/** The value HDR gives at a percentile is within 0.1 % of the exact one. */
function near(actual: number, exact: number): void {
  expect(Math.abs(actual - exact) / exact, `${actual} against ${exact}`).toBeLessThanOrEqual(0.001);
}

describe("custom metrics", () => {
  it("merge exactly across two workers, refuse a second type and a bad name, and gate thresholds", async () => {
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario({
        "metrics.cart_ms.p95": "<100",
        "metrics.in_stock.rate": ">=60%",
        "metrics.orders.count": "==120",
        "metrics.queue_depth.last": "<0",
        "metrics.payload.max": "==5000008",
      }),
      scripts: { "metrics.ts": METRICS_SCRIPT },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id as string;
    const report = await waitForRunEnd<RunDetail>(master.url, runId, 60_000);
    expect(report.status).toBe("finished");
    const iterations = VUS * ITERATIONS;
    // Metrics are not requests: the target's count is the report's.
    expect(target.counts.get("/hello")).toBe(iterations);
    expect(report.summary.total.requests).toBe(iterations);
    expect(report.workers.filter((w) => w.requests > 0)).toHaveLength(2);

    const metrics = report.summary.metrics ?? {};
    expect(Object.keys(metrics).sort()).toEqual(["cart_ms", "in_stock", "orders", "payload", "queue_depth"]);
    // cart_ms: 10n + i for n in 1..8, i in 0..4; the 20th of 40 (p50) is 44, the 38th (p95) 82.
    const cart = metrics.cart_ms;
    expect(cart).toMatchObject({ type: "trend", unit: "ms", count: iterations, min: 10, max: 84, mean: 47 });
    if (cart.type !== "trend") throw new Error("cart_ms is not a trend");
    near(cart.p50, 44);
    near(cart.p95, 82);
    // Bytes are recorded whole, far past the range of a trend in ms.
    expect(metrics.payload).toMatchObject({
      type: "trend",
      unit: "bytes",
      count: iterations,
      min: 5_000_001,
      max: 5_000_008,
    });
    expect(metrics.orders).toMatchObject({ type: "counter", count: 3 * iterations });
    expect(metrics.in_stock).toEqual({ type: "rate", passes: 3 * VUS, fails: 2 * VUS, rate: 0.6 });
    expect(metrics.queue_depth).toEqual({ type: "gauge", last: -7.5, min: -7.5, max: 804 });

    expect(report.summary.checks).toEqual([
      { name: "a second type is refused", passes: iterations, fails: 0 },
    ]);
    expect(report.summary.errors).toEqual([
      expect.objectContaining({ kind: "script", count: 1, request: "./metrics.ts" }),
    ]);
    expect(report.summary.errors[0].message).toMatch(
      /"Bad-Name".*is not a metric name.*\(metrics\.ts:\d+:\d+\)$/,
    );
    expect(report.thresholds.map((t) => [t.key, t.pass])).toEqual([
      ["metrics.cart_ms.p95", true],
      ["metrics.in_stock.rate", true],
      ["metrics.orders.count", true],
      ["metrics.queue_depth.last", true],
      ["metrics.payload.max", true],
    ]);
    expect(report.passed).toBe(true);

    // Each second of each metric, stored: they add up to the whole run's figures.
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${runId}/timeseries`);
    const sum = (points: MetricPoint[] | undefined, read: (p: MetricPoint) => number) =>
      (points ?? []).reduce((total, p) => total + read(p), 0);
    expect(sum(series.metrics?.cart_ms, (p) => p.count)).toBe(iterations);
    expect(sum(series.metrics?.orders, (p) => p.value ?? 0)).toBe(3 * iterations);
    expect(sum(series.metrics?.in_stock, (p) => Math.round((p.value ?? 0) * p.count))).toBe(3 * VUS);
    expect(series.metrics?.queue_depth?.at(-1)?.value).toBe(-7.5);
    // An exact window over every second has the run's metrics.
    const last = Math.max(...(series.metrics?.orders ?? []).map((p) => p.t));
    const window = await getJson<RunDetail["summary"]>(
      `${master.url}/api/runs/${runId}/summary?from=0&to=${last + 1}`,
    );
    expect(window.metrics?.orders).toMatchObject({ type: "counter", count: 3 * iterations });
    expect(window.metrics?.cart_ms).toMatchObject({ count: iterations, min: 10, max: 84 });
    // The metrics are series of their own, never a request's.
    expect(Object.keys(series.requests)).toContain("hello");
    expect(Object.keys(series.requests).filter((name) => name.startsWith("\u0002"))).toEqual([]);

    const csv = await fetch(`${master.url}/api/runs/${runId}/report.csv`).then((r) => r.text());
    expect(csv).toContain("cart_ms,METRIC:trend:ms,40,");
    expect(csv).toContain("orders,METRIC:counter,120,");
    const html = await fetch(`${master.url}/api/runs/${runId}/report.html`).then((r) => r.text());
    expect(html).toContain("<h2>Metrics</h2>");
    expect(html).toContain("queue_depth");
  });

  it("volley run exits 1 when a metric's threshold fails, and prints the metrics", async () => {
    writeFileSync(join(cli.dir, "metrics.ts"), METRICS_SCRIPT);
    const file = cli.writeScenario(
      "metrics.json",
      scenario({ "metrics.orders.count": ">1000", "metrics.in_stock.rate": ">50%" }),
    );
    const failed = await cli.volley(["run", file, "--master", master.url]);
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toMatch(/Metrics\n/);
    expect(failed.output).toMatch(/orders\s+counter\s+total 120/);
    expect(failed.output).toMatch(/metrics\.orders\.count.*>1000.*120/);

    const passing = cli.writeScenario("passing.json", scenario({ "metrics.orders.count": "==120" }));
    const passed = await cli.volley(["run", passing, "--master", master.url]);
    expect(passed.code, passed.output).toBe(0);
  });

  it("refuses a metric's threshold on a scenario without a script, naming the field", async () => {
    const refused = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "no-script",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ path: "/hello" }],
        thresholds: { "metrics.orders.count": ">1" },
      },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("only a script records those");
    const badStat = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: { ...scenario({ "metrics.orders.p42": ">1" }) },
      scripts: { "metrics.ts": METRICS_SCRIPT },
    });
    expect(badStat.status).toBe(400);
    expect(JSON.stringify(badStat.body)).toContain("metrics.NAME.STAT");
  });
});
