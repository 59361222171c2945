import { describe, expect, it } from "vitest";
import { newWorker } from "../pipeline/merge-state.js";
import { workerWarnings } from "./worker-warnings.js";

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
});
