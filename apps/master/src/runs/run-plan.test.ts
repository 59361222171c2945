import { parseScenario } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { planRun } from "./run-plan.js";

const scenario = (vus: number) =>
  parseScenario({
    name: "p",
    target: "http://127.0.0.1:1",
    load: { executor: "per-vu-iterations", vus, iterations: 1 },
    requests: [{ path: "/" }],
  });
const workers = [
  { id: "a", name: "a", host: "h", threads: 4 },
  { id: "b", name: "b", host: "h", threads: 2 },
  { id: "c", name: "c", host: "h", threads: 2 },
];

describe("planRun", () => {
  it("splits VUs in proportion to threads", () => {
    const plan = planRun(scenario(800), workers);
    expect(plan.map((p) => p.vus)).toEqual([400, 200, 200]);
    expect(plan[1].partition).toEqual([{ weights: [4, 2, 2], index: 1 }]);
  });

  it("leaves out workers that would get no VU", () => {
    const plan = planRun(scenario(2), workers);
    expect(plan.map((p) => p.vus).reduce((a, b) => a + b, 0)).toBe(2);
    expect(plan.every((p) => p.vus > 0)).toBe(true);
    expect(planRun(scenario(1), workers)).toHaveLength(1);
  });
});
