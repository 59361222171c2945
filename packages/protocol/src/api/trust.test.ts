import { describe, expect, it } from "vitest";
import type { RunDetail } from "./runs.js";
import { type TrustInput, trustOf } from "./trust.js";

function run(
  overrides: Partial<TrustInput> = {},
  total: Partial<RunDetail["summary"]["total"]> = {},
): TrustInput {
  return {
    status: "finished",
    error: null,
    warnings: [],
    workers: [{ workerId: "a" }, { workerId: "b" }] as RunDetail["workers"],
    summary: {
      durationS: 60,
      total: { requests: 50_000, failures: 0, dropped: 0, ...total },
    } as RunDetail["summary"],
    ...overrides,
  };
}

const warning = (
  kind: "saturated" | "worker-lost" | "worker-refused" | "lost-batches",
  fromS = 0,
  toS = 0,
) => ({
  kind,
  workerId: "a",
  workerName: "w-a",
  fromS,
  toS,
  peakCpu: 0,
  peakEventLoopDelayMs: 0,
  message: `${kind} message`,
});

describe("trust verdict", () => {
  it("is trusted without a reason", () => {
    expect(trustOf(run())).toEqual({ verdict: "trusted", reasons: [] });
  });

  it("is degraded by each reason a run's report gives, each with what it means", () => {
    for (const kind of ["saturated", "worker-lost", "worker-refused", "lost-batches"] as const) {
      const trust = trustOf(run({ warnings: [warning(kind, 10, 12)] }));
      expect(trust.verdict, kind).toBe(
        kind === "saturated" ? "degraded" : kind === "lost-batches" ? "degraded" : "untrusted",
      );
      expect(trust.reasons[0]).toMatchObject({ kind, message: `${kind} message`, worker: "w-a" });
    }
    const dropped = trustOf(run({}, { dropped: 500 }));
    expect(dropped.verdict).toBe("degraded");
    expect(dropped.reasons[0].message).toMatch(/^500 iterations \(1\.0 %\) found no free VU/);
    // Iterations due before a late thread began are dropped too, but their own warning says why:
    // only the rest "found no free VU".
    const lateStart = {
      kind: "late-start" as const,
      workerName: "",
      fromS: 0,
      toS: 0,
      message: "late",
      count: 400,
    };
    const late = trustOf(run({ warnings: [lateStart] }, { dropped: 500 }));
    expect(late.reasons.map((r) => r.kind)).toEqual(["late-start", "dropped-iterations"]);
    expect(late.reasons[1].message).toMatch(/^100 iterations \(0\.2 %\) found no free VU/);
    const allLate = trustOf(run({ warnings: [lateStart] }, { dropped: 400 }));
    expect(allLate.reasons.map((r) => r.kind)).toEqual(["late-start"]);
    const short = trustOf(
      run({
        summary: {
          durationS: 4,
          total: { requests: 20_000, failures: 0, dropped: 0 },
        } as RunDetail["summary"],
      }),
    );
    expect(short.reasons.map((r) => r.kind)).toEqual(["short-run"]);
    expect(trustOf(run({}, { requests: 800 })).reasons[0].message).toContain(
      "p99 and above rest on a handful",
    );
    // It names the condition that held: a long run short of requests is not "under 10 s".
    expect(trustOf(run({}, { requests: 800 })).reasons[0].message).toMatch(/: under 1,000 requests, p99/);
    expect(short.reasons[0].message).toMatch(/: under 10 s, p99/);
  });

  it("is untrusted when the run failed, half its workers are missing, or it was saturated half the time", () => {
    expect(trustOf(run({ status: "failed", error: "every worker refused the run" })).verdict).toBe(
      "untrusted",
    );
    // One lost worker of two is half the fleet.
    expect(trustOf(run({ warnings: [warning("worker-lost", 30, 60)] })).verdict).toBe("untrusted");
    const fourWorkers = [{}, {}, {}, {}] as RunDetail["workers"];
    expect(trustOf(run({ workers: fourWorkers, warnings: [warning("worker-lost", 30, 60)] })).verdict).toBe(
      "degraded",
    );
    expect(trustOf(run({ warnings: [warning("saturated", 0, 30)] })).verdict).toBe("untrusted");
    expect(trustOf(run({ warnings: [warning("saturated", 0, 29)] })).verdict).toBe("degraded");
  });
});
