import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";
import { loadShape } from "./load-shape.js";
import { parseScenario } from "./parse-scenario.js";
import { feederPath, feedersByPart } from "./run-shape.js";
import { drawThinkTime } from "./think-time.js";
import { parseThreshold } from "./thresholds.js";

const base = {
  name: "mix",
  target: "http://127.0.0.1:1",
  load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
};

describe("steps: groups, repeats and flows", () => {
  it("lays out groups as markers and unrolls repeats, keeping each request's written path", () => {
    const scenario = parseScenario({
      ...base,
      requests: [
        { name: "login", path: "/login" },
        {
          group: "pay",
          requests: [
            { name: "cart", path: "/cart" },
            { repeat: 2, requests: [{ name: "poll", path: "/p" }] },
          ],
        },
      ],
    });
    expect(scenario.requests.map((r) => r.name)).toEqual(["login", "cart", "poll"]);
    expect(scenario.requestPaths).toEqual([
      ["requests", 0],
      ["requests", 1, "requests", 0],
      ["requests", 1, "requests", 1, "requests", 0],
    ]);
    expect(scenario.groups).toEqual(["pay"]);
    expect(scenario.parts[0].flows).toEqual([
      {
        name: null,
        weight: 1,
        program: [
          { op: "request", index: 0 },
          { op: "groupStart", group: 0 },
          { op: "request", index: 1 },
          // Each turn of a repeat knows its turn ({{repeat}}).
          { op: "request", index: 2, repeat: 0 },
          { op: "request", index: 2, repeat: 1 },
          { op: "groupEnd", group: 0 },
        ],
      },
    ]);
  });

  it("takes weighted flows and names their requests' flow", () => {
    const scenario = parseScenario({
      ...base,
      flows: [
        { name: "browse", weight: 3, requests: [{ name: "look", path: "/items" }] },
        { name: "search", requests: [{ name: "find", path: "/search" }] },
      ],
    });
    expect(scenario.parts[0].flows.map((f) => [f.name, f.weight])).toEqual([
      ["browse", 3],
      ["search", 1],
    ]);
    expect(scenario.requestFlows).toEqual(["browse", "search"]);
  });

  it("names the written path of a problem inside flows, groups and repeats", () => {
    expect(
      issuesOf({
        ...base,
        flows: [
          { name: "a", requests: [{ path: "/ok" }] },
          { name: "b", requests: [{ group: "g", requests: [{ path: "no-slash" }] }] },
        ],
      }),
    ).toEqual([{ path: "flows[1].requests[0].requests[0].path", message: 'path must start with "/"' }]);
    expect(
      issuesOf({ ...base, requests: [{ path: "/a" }], flows: [{ name: "x", requests: [{ path: "/b" }] }] }),
    ).toEqual([
      {
        path: "flows",
        message: "a scenario has requests, flows or a script: requests and flows are both set",
      },
    ]);
    expect(
      issuesOf({ ...base, requests: [{ group: "login", requests: [{ name: "login", path: "/l" }] }] }),
    ).toEqual([
      {
        path: "requests[0].group",
        message: '"login" names both a group and a request: give them different names',
      },
    ]);
    expect(
      issuesOf({
        ...base,
        requests: [{ repeat: 1000, requests: [{ repeat: 11, requests: [{ path: "/x" }] }] }],
      })[0],
    ).toEqual({
      path: "requests",
      message: "one iteration would send more than 10000 requests (repeats unrolled)",
    });
    expect(issuesOf({ ...base, requests: [{ group: "g", requests: [] }] })).toEqual([
      { path: "requests[0].requests", message: "needs at least one request" },
    ]);
  });

  it("takes thresholds per request or group as NAME.metric", () => {
    expect(parseThreshold("pay.p95", "<2s")).toMatchObject({ metric: "p95", request: "pay", value: 2000 });
    expect(parseThreshold("GET /a.b.p99", "<1s")).toMatchObject({ metric: "p99", request: "GET /a.b" });
    const scenario = { ...base, requests: [{ group: "pay", requests: [{ name: "cart", path: "/c" }] }] };
    expect(issuesOf({ ...scenario, thresholds: { "pay.p95": "<1s", "cart.errorRate": "<1%" } })).toEqual([]);
    expect(issuesOf({ ...scenario, thresholds: { "nope.p95": "<1s" } })).toEqual([
      { path: "thresholds.nope.p95", message: 'no request or group is named "nope"' },
    ]);
  });
});

describe("load shapes for the preview", () => {
  it("draws each executor's plan as corners over time", () => {
    const shape = (load: unknown) =>
      loadShape(parseScenario({ ...base, load, requests: [{ path: "/" }] }).parts[0].load);
    expect(shape({ executor: "constant-vus", vus: 10, duration: "30s", rampUp: "5s" })).toEqual({
      unit: "VUs",
      openEnded: false,
      points: [
        [0, 0],
        [5, 10],
        [30, 10],
      ],
    });
    expect(
      shape({
        executor: "ramping-arrival-rate",
        startRate: 5,
        stages: [
          { duration: "10s", target: 50 },
          { duration: "20s", target: 0 },
        ],
        maxVus: 10,
      }),
    ).toEqual({
      unit: "iterations/s",
      openEnded: false,
      points: [
        [0, 5],
        [10, 50],
        [30, 0],
      ],
    });
    expect(shape({ executor: "per-vu-iterations", vus: 3, iterations: 5 }).openEnded).toBe(true);
  });
});

describe("think time distributions", () => {
  it("parses each distribution and draws within its bounds", () => {
    const think = (thinkTime: unknown) =>
      parseScenario({ ...base, requests: [{ path: "/" }], thinkTime }).parts[0].thinkTime;
    expect(think("100ms..300ms")).toEqual({ kind: "uniform", minMs: 100, maxMs: 300 });
    expect(think({ distribution: "normal", mean: "800ms", stddev: "200ms" })).toEqual({
      kind: "normal",
      meanMs: 800,
      stddevMs: 200,
    });
    const normal = think({ distribution: "normal", mean: "800ms", stddev: "200ms" });
    const draws = Array.from({ length: 5000 }, () => drawThinkTime(normal));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeGreaterThan(780);
    expect(mean).toBeLessThan(820);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThanOrEqual(1600);
    const exponential = think({ distribution: "exponential", mean: "100ms" });
    const e = Array.from({ length: 5000 }, () => drawThinkTime(exponential));
    expect(e.reduce((a, b) => a + b, 0) / e.length).toBeGreaterThan(85);
    expect(Math.max(...e)).toBeLessThanOrEqual(1000);
    expect(
      issuesOf({
        ...base,
        requests: [{ path: "/" }],
        thinkTime: { distribution: "uniform", min: "2s", max: "1s" },
      }),
    ).toEqual([{ path: "thinkTime.max", message: "min must not exceed max" }]);
  });
});

describe("scenarios: feeders of one scenario", () => {
  const load = { executor: "per-vu-iterations", vus: 1, iterations: 1 };
  const mix = (extra: Record<string, unknown> = {}) => ({
    name: "mix",
    target: "http://127.0.0.1:1",
    data: { shared: { rows: [{ id: "s" }] }, idle: { rows: [{ id: "i" }] } },
    scenarios: {
      signup: {
        load,
        data: { users: { rows: [{ email: "a@x" }], mode: "unique" } },
        requests: [{ name: "register", path: "/r/{{data.users.email}}/{{data.shared.id}}" }],
      },
      browse: { load, requests: [{ name: "look", path: "/look" }] },
    },
    ...extra,
  });

  it("joins one namespace; each scenario takes its own feeders and the shared ones it reads", () => {
    const scenario = parseScenario(mix());
    expect(Object.keys(scenario.data).sort()).toEqual(["idle", "shared", "users"]);
    expect(scenario.feederScenarios).toEqual({ users: "signup" });
    expect(feedersByPart(scenario)).toEqual([["shared", "users"], []]);
    expect(feederPath(scenario, "users")).toBe("scenarios.signup.data.users");
    expect(feederPath(scenario, "shared")).toBe("data.shared");
    // One part takes every feeder, read or not.
    const single = parseScenario({ ...base, data: { n: { rows: [{ a: "1" }] } }, requests: [{ path: "/" }] });
    expect(feedersByPart(single)).toEqual([["n"]]);
  });

  it("refuses a name declared twice and a feeder read outside its scenario, by field path", () => {
    const twice = mix({ data: { users: { rows: [{ email: "b" }] } } });
    expect(issuesOf(twice)).toContainEqual({
      path: "scenarios.signup.data.users",
      message:
        'feeder "users" is also declared in the top-level data: feeder names are shared, give it another',
    });
    const stray = mix();
    (stray.scenarios.browse.requests[0] as { path: string }).path = "/look/{{data.users.email}}";
    expect(issuesOf(stray)).toContainEqual({
      path: "scenarios.browse.requests[0].path",
      message:
        '{{data.users.email}}: feeder "users" belongs to scenario signup; declare it in the top-level data to share it',
    });
  });
});

describe("names", () => {
  it("refuses control characters in request and group names and in paths", () => {
    const issues = issuesOf({
      ...base,
      requests: [
        { name: "a\u0001b", path: "/" },
        { path: "/x\ny" },
        { group: "g\u0007", requests: [{ path: "/" }] },
      ],
    });
    expect(issues).toEqual([
      { path: "requests[0].name", message: "a name must not hold control characters" },
      { path: "requests[1].path", message: "percent-encode control characters in a path" },
      { path: "requests[2].group", message: "a name must not hold control characters" },
    ]);
  });
});

describe("checks thresholds", () => {
  it("need a request with expect, and NAME.checks names one", () => {
    const requests = [
      { name: "a", path: "/", expect: { status: 200 } },
      { name: "b", path: "/" },
    ];
    expect(issuesOf({ ...base, requests, thresholds: { checks: ">99%", "a.checks": ">=0.9" } })).toEqual([]);
    expect(issuesOf({ ...base, requests: [{ path: "/" }], thresholds: { checks: ">99%" } })).toEqual([
      {
        path: "thresholds.checks",
        message: "no request has expect: a checks threshold needs at least one check",
      },
    ]);
    expect(issuesOf({ ...base, requests, thresholds: { "b.checks": ">99%" } })).toEqual([
      {
        path: "thresholds.b.checks",
        message: 'no check is named "b" (checks are the requests with expect: a)',
      },
    ]);
    expect(issuesOf({ ...base, requests, thresholds: { checks: ">99ms" } })[0].message).toBe(
      'checks is a ratio: write it as ">99%" or ">0.99"',
    );
  });
});
