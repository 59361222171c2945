import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";
import { parseScenario } from "./parse-scenario.js";
import { statsNames } from "./scenario-names.js";
import { nameMeans, scopedName, unscopedName } from "./scoped-names.js";

const load = { executor: "per-vu-iterations", vus: 1, iterations: 1 };
const twoScenarios = (thresholds: Record<string, string> = {}) => ({
  name: "shared",
  target: "http://127.0.0.1:1",
  scenarios: {
    web: {
      load,
      requests: [
        { name: "login", path: "/login", expect: { status: 200 } },
        { group: "pay", requests: [{ name: "cart", path: "/cart" }] },
      ],
    },
    app: {
      load,
      requests: [
        { name: "login", path: "/login" },
        { group: "cart", requests: [{ path: "/items" }] },
      ],
    },
  },
  thresholds,
});

describe("scoped names: each of scenarios: records under its own names", () => {
  it("keeps the same request name of two scenarios apart, and a group beside another scenario's request", () => {
    const scenario = parseScenario(twoScenarios());
    expect(statsNames(scenario)).toEqual([
      "web · login",
      "web · cart",
      "app · login",
      "app · GET /items",
      "web · pay",
      "app · cart",
    ]);
  });

  it("names a single scenario's requests as written", () => {
    const scenario = parseScenario({
      name: "one",
      target: "http://127.0.0.1:1",
      load,
      requests: [
        { name: "login", path: "/login" },
        { group: "pay", requests: [{ path: "/pay" }] },
      ],
    });
    expect(statsNames(scenario)).toEqual(["login", "GET /pay", "pay"]);
  });

  it("still refuses a group and a request of one scenario under one name", () => {
    const input = twoScenarios();
    input.scenarios.app.requests.push({ name: "cart", path: "/cart" });
    expect(issuesOf(input)).toEqual([
      {
        path: "scenarios.app.requests[1].group",
        message: '"app · cart" names both a group and a request: give them different names',
      },
    ]);
  });

  it("judges a threshold on a name as written, or scoped; asks which scenario when two have it", () => {
    expect(issuesOf(twoScenarios({ "web · login.p95": "<1s", "pay.p95": "<1s", "cart.p95": "<1s" }))).toEqual(
      [
        {
          path: "thresholds.cart.p95",
          message: '"cart" is a name of several scenarios: write one of "web · cart", "app · cart"',
        },
      ],
    );
    expect(issuesOf(twoScenarios({ "login.checks": ">99%", "app · nope.p95": "<1s" }))).toEqual([
      { path: "thresholds.app · nope.p95", message: 'no request or group is named "app · nope"' },
    ]);
  });

  it("bounds a scenario's name: it travels in every name its statistics are kept under", () => {
    const input = {
      name: "long",
      target: "http://127.0.0.1:1",
      scenarios: { ["s".repeat(65)]: { load, requests: [{ path: "/" }] } },
    };
    expect(issuesOf(input)).toEqual([
      { path: `scenarios.${"s".repeat(65)}`, message: "a scenario name has at most 64 characters" },
    ]);
    const spaced = { ...input, scenarios: { "web · x": { load, requests: [{ path: "/" }] } } };
    expect(issuesOf(spaced)).toEqual([
      { path: "scenarios.web · x", message: "a scenario name must be a plain identifier" },
    ]);
  });

  it("reads a scoped name back by the scenario name it starts with", () => {
    expect(unscopedName(scopedName("a", "b · c"), ["ab", "a"])).toEqual({ scenario: "a", name: "b · c" });
    expect(unscopedName("login", ["web"])).toEqual({ name: "login" });
    expect(unscopedName("web · login", [null])).toEqual({ name: "web · login" });
    expect(nameMeans("login", { name: "login", scenario: "web" })).toBe(true);
    expect(nameMeans("web · login", { name: "login", scenario: "web" })).toBe(true);
    expect(nameMeans("app · login", { name: "login", scenario: "web" })).toBe(false);
  });
});
