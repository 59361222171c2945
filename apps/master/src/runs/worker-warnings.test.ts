import { describe, expect, it } from "vitest";
import { newWorker } from "../pipeline/merge-state.js";
import { clockSkewWarning, workerWarnings } from "./worker-warnings.js";

describe("workerWarnings", () => {
  it("names a lost worker, a refusing one and lost batches, with what each means", () => {
    const lost = newWorker("a", "alpha");
    lost.lost = true;
    lost.requests = 50;
    for (let s = 0; s < 7; s++) lost.received.add(s);
    const refused = newWorker("b", "beta");
    const leaky = newWorker("c", "gamma");
    leaky.lostBatches = 3;
    const fine = newWorker("d", "delta");
    const warnings = workerWarnings([lost, refused, leaky, fine], new Map([["b", "no memory"]]), 1000, 10);
    expect(warnings.map((w) => [w.kind, w.workerName])).toEqual([
      ["worker-lost", "alpha"],
      ["worker-refused", "beta"],
      ["lost-batches", "gamma"],
    ]);
    expect(warnings[0].message).toBe(
      "alpha was lost after 7 s: what it sent later is missing from these figures (it had reported 50 requests, 5.0 % of the total)",
    );
    expect(warnings[0]).toMatchObject({ fromS: 7, toS: 10 });
    expect(warnings[1].message).toContain("beta refused the run (no memory)");
  });

  it("says when two workers' clocks may disagree by more than 10 ms, naming the least certain", () => {
    const workers = (...ms: number[]) => new Map(ms.map((m, i) => [`w${i}`, { name: `worker-${i}`, ms: m }]));
    expect(clockSkewWarning(workers(2, 3, 4))).toBeNull();
    expect(clockSkewWarning(workers(40))).toBeNull();
    const warning = clockSkewWarning(workers(1, 9, 4));
    expect(warning).toMatchObject({ kind: "clock-skew", workerName: "worker-1" });
    expect(warning?.message).toMatch(
      /^the workers' clocks may disagree by up to 13 ms \(worker-1 knows the master's clock to ±9 ms\)/,
    );
  });
});
