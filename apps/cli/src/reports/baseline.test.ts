import type { RunDetail } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { compareWithBaseline, parseRegressionLimits } from "./baseline.js";

const run = (p95: number, rps: number, failures: number) =>
  ({
    summary: { total: { requests: 1000, failures, rps, latencyMs: { p95, p99: p95 * 2 } } },
  }) as unknown as RunDetail;

describe("--baseline and --max-regression", () => {
  it("reads METRIC=N% pairs and refuses anything else, naming it", () => {
    expect(parseRegressionLimits("p95=10%, rps=5%,errorRate=0.5%")).toEqual({
      p95: 10,
      rps: 5,
      errorRate: 0.5,
    });
    expect(() => parseRegressionLimits("p95=10")).toThrow(/"p95=10" is not METRIC=N%/);
    expect(() => parseRegressionLimits("speed=10%")).toThrow(/"speed=10%" is not METRIC=N%/);
    expect(() => parseRegressionLimits(" , ")).toThrow(/at least one/);
  });

  it("latency worse when higher, rps when lower (relative); errorRate in points", () => {
    const baseline = run(40, 1000, 10);
    const compared = compareWithBaseline(run(45, 940, 25), baseline, { p95: 10, rps: 5, errorRate: 1 });
    expect(compared.map((c) => [c.metric, c.regressed])).toEqual([
      ["p95", true],
      ["rps", true],
      ["errorRate", true],
    ]);
    expect(compared[0].line).toBe("p95 45.0 ms vs 40.0 ms (+12.5 %, allowed +10 %)");
    expect(compared[1].line).toBe("rps 940.0 req/s vs 1000.0 req/s (-6.0 %, allowed -5 %)");
    expect(compared[2].line).toBe("errorRate 2.50 % vs 1.00 % (+1.50 points, allowed +1)");
    // Faster and busier is never a regression.
    const better = compareWithBaseline(run(20, 2000, 0), baseline, { p95: 1, rps: 1, errorRate: 0 });
    expect(better.every((c) => !c.regressed)).toBe(true);
  });

  it("a percentile over its limit is a regression only when the whole distribution moved", () => {
    const baseline = run(40, 1000, 0);
    const shifted = { p95: { aMs: 40, aShare: 0.05, bShare: 0.3, z: 25 } };
    const [real] = compareWithBaseline(run(48, 1000, 0), baseline, { p95: 10 }, shifted);
    expect(real.regressed).toBe(true);
    expect(real.line).toBe(
      "p95 48.0 ms vs 40.0 ms (+20.0 %, allowed +10 %); 30.0 % of requests slower than the baseline's p95, it had 5.0 %",
    );
    const noisy = { p95: { aMs: 40, aShare: 0.05, bShare: 0.07, z: 1.2 } };
    const [noise] = compareWithBaseline(run(48, 1000, 0), baseline, { p95: 10 }, noisy);
    expect(noise.regressed).toBe(false);
    expect(noise.line).toContain("within sampling noise (z 1.2 ≤ 3), not judged a regression");
    // Within its limit it passes whatever the z says.
    const [small] = compareWithBaseline(run(42, 1000, 0), baseline, { p95: 10 }, shifted);
    expect(small.regressed).toBe(false);
  });
});
