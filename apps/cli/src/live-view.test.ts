import type { RunDetail, TimeseriesPoint } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { clock, LiveView, liveLines, plainLine } from "./live-view.js";

const START = Date.parse("2026-11-30T12:00:00Z");

function run(overrides: Partial<RunDetail> = {}, now: Partial<TimeseriesPoint> | null = {}): RunDetail {
  const total = {
    requests: 12_000,
    failures: 30,
    dropped: 0,
    rps: 400,
    bytesIn: 0,
    bytesOut: 0,
    latencyMs: { min: 1, mean: 5, max: 90, p50: 4, p75: 6, p90: 9, p95: 12.5, p99: 40, p999: 80 },
  };
  return {
    id: "r1",
    name: "checkout",
    status: "running",
    createdAt: new Date(START).toISOString(),
    startedAt: new Date(START).toISOString(),
    finishedAt: null,
    scenario: {} as RunDetail["scenario"],
    workers: [
      { workerId: "a", name: "w-a", vus: 30, status: "running" },
      { workerId: "b", name: "w-b", vus: 20, status: "lost" },
    ] as RunDetail["workers"],
    summary: {
      total,
      durationS: 30,
      requests: [],
      statusCodes: {},
      errors: [],
    } as unknown as RunDetail["summary"],
    thresholds: [],
    passed: null,
    error: null,
    stopReason: null,
    warnings: [],
    plannedDurationS: 60,
    now: now === null ? null : ({ t: 29, rps: 512, vus: 37, p95: 15.25, ...now } as TimeseriesPoint),
    ...overrides,
  };
}

describe("live view of volley run", () => {
  it("counts a run of a fixed number of iterations in iterations, and says which workers finished", () => {
    const scenario = {
      name: "iters",
      target: "http://127.0.0.1:1",
      load: { executor: "per-vu-iterations", vus: 2, iterations: 15 },
      requests: [{ path: "/" }],
    } as unknown as RunDetail["scenario"];
    const base = run({ id: "iters", scenario });
    const going = { ...base, summary: { ...base.summary, total: { ...base.summary.total, iterations: 12 } } };
    const [head, numbers] = liveLines(going, START + 3_000);
    expect(head).toBe("checkout  running  0:03  12 of 30 iterations  [##########--------------] 40%");
    expect(numbers).toContain("workers 1 running, 1 lost");
    expect(plainLine(going, START + 3_000)).toMatch(/^\[0:03 12\/30 iterations\] running/);
    const done = {
      ...going,
      workers: going.workers.map((w) => ({ ...w, status: w.status === "running" ? "finished" : w.status })),
    } as RunDetail;
    expect(liveLines(done, START + 4_000)[1]).toContain("workers 1 finished, 1 lost");
  });

  it("shows elapsed of planned with a bar, rps and p95 of the last second, errors, VUs, workers", () => {
    const [head, numbers] = liveLines(run(), START + 30_000);
    expect(head).toBe("checkout  running  0:30 / 1:00  [############------------] 50%");
    expect(numbers).toBe(
      "  rps 512/s   p95 15.3 ms   errors 0.25% (30)   VUs 37 of 50   workers 1 running, 1 lost",
    );
  });

  it("falls back to the run's averages before the first second is merged, and flags saturation now", () => {
    const saturated = run(
      {
        warnings: [
          { kind: "saturated", workerId: "a", workerName: "w-a", fromS: 20, toS: 29, peakCpu: 99 } as never,
          { kind: "saturated", workerId: "b", workerName: "w-b", fromS: 2, toS: 5, peakCpu: 97 } as never,
        ],
      },
      null,
    );
    const lines = liveLines(saturated, START + 30_000);
    expect(lines[1]).toContain("rps 400/s   p95 12.5 ms");
    // Only the span that reaches the last seconds is "now".
    expect(lines[2]).toBe("  ! saturated: w-a (the generator, not the target, may be the limit)");
    expect(plainLine(saturated, START + 30_000)).toContain("SATURATED w-a");
  });

  it("redraws its block in place in a terminal, and prints a plain line every 5 s elsewhere", () => {
    let now = START + 10_000;
    const tty: string[] = [];
    const view = new LiveView({ isTTY: true, columns: 200, write: (t) => tty.push(t) }, () => now);
    view.update(run());
    view.update(run());
    expect(tty[0].startsWith("\r\x1b[2Kcheckout")).toBe(true);
    // The second frame goes back up one line (a block of two) before rewriting.
    expect(tty[1].startsWith("\r\x1b[1A\x1b[2Kcheckout")).toBe(true);
    view.finish();
    expect(tty.at(-1)).toBe("\n");

    const log: string[] = [];
    const plain = new LiveView({ isTTY: false, write: (t) => log.push(t) }, () => now);
    for (let i = 0; i < 12; i++) {
      plain.update(run());
      now += 1000;
    }
    expect(log).toHaveLength(3);
    expect(log[0]).toMatch(/^\[0:\d\d\/1:00\] running {2}rps 512\/s {2}p95 15\.3 ms/);
    expect(log.join("")).not.toContain("\x1b");
  });

  it("shows no latency before the first request, and a decimal for small rates", () => {
    const empty = run({}, { rps: 7.25 });
    empty.summary.total.requests = 0;
    expect(liveLines(empty, START + 1000)[1]).toContain("rps 7.3/s   p95 –");
  });

  it("says a queued run is waiting", () => {
    expect(liveLines(run({ status: "queued", startedAt: null }), START)).toEqual([
      "checkout  queued: it starts when the runs before it end",
    ]);
  });

  it("writes clock times as m:ss, and h:mm:ss past an hour", () => {
    expect([clock(0), clock(59.9), clock(61), clock(3_725)]).toEqual(["0:00", "0:59", "1:01", "1:02:05"]);
  });
});
