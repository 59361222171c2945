import { parseScenario } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { applyOverrides, flagOfIssue } from "./load-overrides.js";

const scenario = (load: Record<string, unknown>) => ({
  name: "s",
  target: "http://127.0.0.1:9",
  load,
  requests: [{ path: "/" }],
});
const loadOf = (written: unknown, flags: Parameters<typeof applyOverrides>[1]) =>
  (applyOverrides(written, flags).input as { load: unknown }).load;

describe("k6's flags on volley run", () => {
  it("--vus and --duration make constant VUs of a ramp, and change a constant load in place", () => {
    const ramp = scenario({
      executor: "ramping-vus",
      stages: [{ duration: "1m", target: 10 }],
      gracefulStop: "2s",
    });
    expect(loadOf(ramp, { vus: "50", duration: "1m" })).toEqual({
      executor: "constant-vus",
      vus: 50,
      duration: "1m",
      gracefulStop: "2s",
    });
    const constant = scenario({ executor: "constant-vus", vus: 5, duration: "10s", rampUp: "2s", maxVus: 8 });
    expect(loadOf(constant, { vus: "20" })).toEqual({
      executor: "constant-vus",
      vus: 20,
      duration: "10s",
      rampUp: "2s",
    });
    expect(loadOf(constant, { duration: "2m" })).toMatchObject({ vus: 5, duration: "2m", maxVus: 8 });
  });

  it("--iterations shares them among --vus VUs (1 by default), --rate runs an arrival rate", () => {
    const constant = scenario({ executor: "constant-vus", vus: 5, duration: "10s" });
    expect(loadOf(constant, { iterations: "100" })).toEqual({
      executor: "shared-iterations",
      vus: 1,
      iterations: 100,
    });
    expect(loadOf(constant, { iterations: "100", vus: "4", duration: "30s" })).toEqual({
      executor: "shared-iterations",
      vus: 4,
      iterations: 100,
      maxDuration: "30s",
    });
    expect(loadOf(constant, { rate: "12.5" })).toEqual({
      executor: "constant-arrival-rate",
      rate: 12.5,
      duration: "10s",
      maxVus: 5,
    });
    const perVu = scenario({ executor: "per-vu-iterations", vus: 3, iterations: 7 });
    expect(loadOf(perVu, { vus: "6", duration: "20s" })).toMatchObject({
      vus: 6,
      iterations: 7,
      maxDuration: "20s",
    });
    for (const written of [ramp(), constant, perVu]) {
      const { input } = applyOverrides(written, { vus: "2", duration: "5s" });
      expect(() => parseScenario(input)).not.toThrow();
    }
  });

  it("refuses what it cannot read, naming the flag", () => {
    const constant = scenario({ executor: "constant-vus", vus: 5, duration: "10s" });
    expect(() => applyOverrides(constant, { vus: "many" })).toThrow(/--vus: expected a whole number/);
    expect(() => applyOverrides(constant, { rate: "-3" })).toThrow(/--rate: expected iterations per second/);
    expect(() => applyOverrides(constant, { rate: "3", iterations: "9" })).toThrow(/--rate and --iterations/);
    expect(() => applyOverrides(ramp(), { vus: "3" })).toThrow(
      /--duration: give --vus and --duration together/,
    );
    const iterations = scenario({ executor: "per-vu-iterations", vus: 3, iterations: 7 });
    expect(() => applyOverrides(iterations, { rate: "3" })).toThrow(/--rate: give --duration too/);
    expect(() => applyOverrides({ ...constant, load: undefined, scenarios: {} }, { vus: "3" })).toThrow(
      /--vus: the scenario has several loads/,
    );
    expect(() => applyOverrides(constant, { env: ["no-equals"] })).toThrow(/-e: expected KEY=VALUE/);
  });

  it("names a refused field by the flag that set it", () => {
    const { input, flags } = applyOverrides(scenario({ executor: "constant-vus", vus: 5, duration: "10s" }), {
      duration: "soon",
      target: "ftp://x",
    });
    let paths: string[] = [];
    try {
      parseScenario(input);
    } catch (error) {
      paths = (error as { issues: Array<{ path: string }> }).issues.map((i) => i.path);
    }
    expect(paths).toEqual(expect.arrayContaining(["load.duration", "target"]));
    expect(flagOfIssue(flags, "load.duration")).toBe("--duration");
    expect(flagOfIssue(flags, "target")).toBe("--target");
    expect(flagOfIssue(flags, "requests.0.path")).toBeUndefined();
  });

  it("-e adds names to the scenario's env and gives their values", () => {
    const { input, env, said } = applyOverrides({ ...scenario({}), env: ["A"] }, { env: ["A=1", "B=x=y"] });
    expect((input as { env: string[] }).env).toEqual(["A", "B"]);
    expect(env).toEqual({ A: "1", B: "x=y" });
    expect(said).toEqual(["env A, B"]);
  });
});

function ramp() {
  return scenario({ executor: "ramping-vus", stages: [{ duration: "1m", target: 10 }] });
}
