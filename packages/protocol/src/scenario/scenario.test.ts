import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";
import { parseScenario, readScenarioText } from "./parse-scenario.js";

const valid = {
  name: "checkout",
  target: "http://127.0.0.1:18080",
  load: { executor: "constant-vus", vus: 50, duration: "30s", rampUp: "5s" },
  requests: [
    {
      name: "login",
      method: "POST",
      path: "/login",
      headers: { "content-type": "application/json" },
      body: { user: "u{{vu}}" },
      capture: { token: "json.token" },
      expect: { status: 200 },
    },
    { name: "order", method: "POST", path: "/orders", headers: { authorization: "Bearer {{token}}" } },
  ],
  thinkTime: "0ms",
  timeout: "10s",
  thresholds: { p95: "<200ms", errorRate: "<1%" } as Record<string, string>,
};

function withChanges(change: (s: typeof valid & Record<string, unknown>) => void): unknown {
  const copy = structuredClone(valid) as typeof valid & Record<string, unknown>;
  change(copy);
  return copy;
}

describe("scenario validation", () => {
  it("accepts the contract's example and fills defaults", () => {
    const scenario = parseScenario(valid);
    expect(scenario.parts[0].load).toEqual({
      executor: "constant-vus",
      vus: 50,
      duration: 30_000,
      rampUp: 5000,
      gracefulStop: 5000,
    });
    expect(scenario.timeout).toBe(10_000);
    expect(scenario.parts[0].thinkTime).toEqual({ kind: "uniform", minMs: 0, maxMs: 0 });
    expect(scenario.requests[0].expect?.status).toEqual([[200, 200]]);
    expect(scenario.requests[1].method).toBe("POST");
    expect(scenario.http.keepAliveTimeout).toBe(4000);
  });

  it("takes http.version 1.1, 2 and 2c, each with its scheme; anything else names the field", () => {
    expect(parseScenario(valid).http.version).toBe("1.1");
    expect(
      parseScenario(withChanges((s) => Object.assign(s, { http: { version: "2c" } }))).http.version,
    ).toBe("2c");
    const tls = withChanges((s) => Object.assign(s, { target: "https://127.0.0.1:1", http: { version: 2 } }));
    expect(parseScenario(tls).http.version).toBe("2");
    expect(issuesOf(withChanges((s) => Object.assign(s, { http: { version: "3" } })))).toEqual([
      {
        path: "http.version",
        message: 'version must be 1.1, 2 (HTTP/2 over TLS) or "2c" (HTTP/2 over plain TCP)',
      },
    ]);
    const h2cOverTls = withChanges((s) =>
      Object.assign(s, { target: "https://127.0.0.1:1", http: { version: "2c" } }),
    );
    expect(issuesOf(h2cOverTls)[0]).toMatchObject({
      path: "target",
      message: expect.stringContaining("use http://"),
    });
  });

  it("accepts every executor", () => {
    const loads = [
      {
        executor: "ramping-vus",
        stages: [
          { duration: "10s", target: 100 },
          { duration: "5s", target: 0 },
        ],
      },
      { executor: "per-vu-iterations", vus: 300, iterations: 100 },
      { executor: "constant-arrival-rate", rate: 200, duration: "1m", maxVus: 50 },
      { executor: "ramping-arrival-rate", stages: [{ duration: "30s", target: 500 }], maxVus: 100 },
    ];
    for (const load of loads)
      expect(parseScenario({ ...valid, load }).parts[0].load.executor).toBe(load.executor);
  });

  it("names the field path of each problem", () => {
    const issues = issuesOf(
      withChanges((s) => {
        s.load = { executor: "constant-vus", vus: 0, duration: "thirty" } as never;
        s.requests[1].path = "orders";
        s.target = "ftp://example";
      }),
    );
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath["load.vus"]).toMatch(/>=1|at least|too small/i);
    expect(byPath["load.duration"]).toContain('"thirty" is not a duration');
    expect(byPath["requests[1].path"]).toBe('path must start with "/"');
    expect(byPath.target).toContain("http:// or https://");
  });

  it("reports unknown executors, unknown fields and missing fields", () => {
    expect(issuesOf({ ...valid, load: { executor: "warp", vus: 1 } })).toEqual([
      expect.objectContaining({ path: "load.executor", message: expect.stringContaining("constant-vus") }),
    ]);
    expect(issuesOf({ ...valid, vus: 3 })).toEqual([{ path: "(root)", message: 'unknown field "vus"' }]);
    const { target: _target, ...noTarget } = valid;
    expect(issuesOf(noTarget)).toEqual([expect.objectContaining({ path: "target" })]);
  });

  it("rejects templates that read variables nobody captures, and bad template syntax", () => {
    const issues = issuesOf(
      withChanges((s) => {
        s.requests[1].headers = { authorization: "Bearer {{session}}" };
        s.requests[0].path = "/login/{{randomInt 5 1}}";
      }),
    );
    expect(issues).toContainEqual({
      path: "requests[1].headers.authorization",
      message: expect.stringContaining("{{session}} is neither a built-in variable"),
    });
    expect(issues).toContainEqual({
      path: "requests[0].path",
      message: expect.stringContaining("first bound must not exceed"),
    });
  });

  it("checks captures, expectations, think time and thresholds", () => {
    const issues = issuesOf(
      withChanges((s) => {
        s.requests[0].capture = { token: "body.token" };
        (s.requests[0].expect as Record<string, unknown>).status = "20x";
        s.thinkTime = "2s..1s";
        s.thresholds = { p96: "<1ms", errorRate: "<1ms" };
      }),
    );
    const paths = issues.map((i) => i.path);
    expect(paths).toContain("requests[0].capture.token");
    expect(paths).toContain("requests[0].expect.status");
    expect(paths).toContain("thinkTime");
    expect(paths).toContain("thresholds.p96");
    expect(paths).toContain("thresholds.errorRate");
  });

  it("checks across fields once each field is valid", () => {
    const issues = issuesOf(withChanges((s) => (s.thresholds = { "p95[nobody]": "<1s" })));
    expect(issues).toEqual([
      { path: "thresholds.p95[nobody]", message: 'no request or group is named "nobody"' },
    ]);
  });

  it("normalises status expectations", () => {
    const parse = (status: unknown) =>
      parseScenario(withChanges((s) => ((s.requests[0].expect as Record<string, unknown>).status = status)))
        .requests[0].expect?.status;
    expect(parse([200, 201])).toEqual([
      [200, 200],
      [201, 201],
    ]);
    expect(parse("2xx")).toEqual([[200, 299]]);
    expect(parse(["200-204", 302])).toEqual([
      [200, 204],
      [302, 302],
    ]);
  });
});

describe("readScenarioText", () => {
  it("reads YAML and JSON", () => {
    const yaml =
      "name: y\ntarget: http://127.0.0.1:1\nload: { executor: per-vu-iterations, vus: 1, iterations: 1 }\nrequests:\n  - path: /\n";
    expect(parseScenario(readScenarioText(yaml, "yaml")).requests[0].method).toBe("GET");
    expect(readScenarioText('{"a":1}', "json")).toEqual({ a: 1 });
  });

  it("reports syntax errors with a position", () => {
    expect(() => readScenarioText("name: [unclosed", "yaml")).toThrow(/not valid YAML at line 1/);
    expect(() => readScenarioText("{", "json")).toThrow(/not valid JSON/);
  });
});

describe("k6-style thresholds", () => {
  const withThresholds = (thresholds: Record<string, unknown>) =>
    withChanges((s) => Object.assign(s, { thresholds }));
  it("get the Volley spelling of what was written", () => {
    expect(issuesOf(withThresholds({ http_req_duration: ["p(95)<500", "avg<200"] }))).toEqual([
      {
        path: "thresholds.http_req_duration",
        message: `k6's http_req_duration is written "p95": "<500ms", "mean": "<200ms" in Volley (one key per expression)`,
      },
    ]);
    expect(issuesOf(withThresholds({ http_req_failed: ["rate<0.01"] }))[0].message).toContain(
      `"errorRate": "<0.01"`,
    );
    expect(issuesOf(withThresholds({ "http_req_duration{name:login}": ["p(99)<300"] }))[0].message).toContain(
      `"login.p99": "<300ms"`,
    );
    expect(issuesOf(withThresholds({ checks: ["rate>0.99"] }))[0].message).toContain(`"checks": ">0.99"`);
    // A k6 custom metric (Trend, Rate, Counter, Gauge): Volley's metrics.NAME.STAT.
    expect(issuesOf(withThresholds({ cart_ms: ["p(95)<200", "avg<100"] }))[0].message).toBe(
      `a k6 custom metric is written "metrics.cart_ms.p95": "<200", "metrics.cart_ms.mean": "<100" in Volley (one key per expression)`,
    );
    expect(issuesOf(withThresholds({ queue_depth: "value<5" }))[0].message).toContain(
      `"metrics.queue_depth.last": "<5"`,
    );
    expect(issuesOf(withThresholds({ http_reqs: "count>100" }))[0].message).toContain(`"requests": ">100"`);
    expect(issuesOf(withThresholds({ p95: ["<200ms"] }))[0].message).toBe(
      'a threshold is one expression, not a list: write "p95": "<200ms" (one key per expression)',
    );
    expect(issuesOf(withThresholds({ p95: 200 }))[0].message).toBe(
      'write an expression ("<200ms") or { threshold, abortOnFail, delayAbortEval }',
    );
  });
});

describe("unknown fields", () => {
  it("are named with the field of that object that was probably meant", () => {
    const mistyped = withChanges((s) => {
      Object.assign(s.load, { exector: "constant-vus" });
      Object.assign(s.requests[0], { heders: {} });
      Object.assign(s, { thinktime: "1s", zzz: 1 });
    });
    expect(issuesOf(mistyped)).toEqual(
      expect.arrayContaining([
        { path: "(root)", message: 'unknown fields "thinktime" (did you mean "thinkTime"?), "zzz"' },
        { path: "requests[0]", message: 'unknown field "heders" (did you mean "headers"?)' },
      ]),
    );
    expect(issuesOf(mistyped).find((i) => i.path === "load")?.message).toBe(
      'unknown field "exector" (did you mean "executor"?)',
    );
  });

  it("answer k6's spellings with Volley's", () => {
    const k6 = withChanges((s) => {
      Object.assign(s, {
        load: {
          executor: "ramping-vus",
          startVUs: 1,
          gracefulRampDown: "5s",
          stages: [{ duration: "1s", target: 2 }],
        },
      });
    });
    expect(issuesOf(k6).find((i) => i.path === "load")?.message).toBe(
      'unknown fields "startVUs" (k6\'s startVUs is "startVus" in Volley), "gracefulRampDown" ' +
        "(k6's gracefulRampDown: Volley's VUs above a lowered target finish their iteration, then rest)",
    );
  });

  it("come with the scenario's other problems, not in a round before them", () => {
    const both = withChanges((s) => {
      Object.assign(s.requests[1], { heders: {}, path: "/orders/{{nobody}}" });
      Object.assign(s, { thinktime: "1s", thresholds: { "nothing.p95": "<1s" } });
    });
    expect(issuesOf(both).map((i) => i.path)).toEqual([
      "requests[1]",
      "(root)",
      "requests[1].path",
      "thresholds.nothing.p95",
    ]);
    // A bad value too: the scenario is read past it, its template problem comes in the same answer.
    const bad = withChanges((s) => {
      Object.assign(s.requests[1], { path: "/orders/{{nobody}}", timeout: "soon" });
    });
    expect(issuesOf(bad).map((i) => i.path)).toEqual(["requests[1].timeout", "requests[1].path"]);
  });

  it("say the executor was mistyped, not missing, when it is written under a close name", () => {
    const typo = withChanges((s) => {
      s.load = { exector: "constant-vus", vus: 2, duration: "5s" } as unknown as typeof s.load;
    });
    expect(issuesOf(typo)).toEqual([
      { path: "load.exector", message: 'unknown field "exector" (did you mean "executor"?)' },
    ]);
    const missing = withChanges((s) => {
      s.load = { vus: 2, duration: "5s" } as unknown as typeof s.load;
    });
    expect(issuesOf(missing)).toEqual([
      { path: "load.executor", message: expect.stringContaining("executor must be one of constant-vus") },
    ]);
  });
});

describe("x- keys and YAML anchors", () => {
  it("ignores the writer's own x- keys and merges what their anchors hold", () => {
    const text = `
x-auth: &auth { authorization: "Bearer t" }
x-base: &base { method: POST, headers: { <<: *auth, x-trace: "1" } }
name: anchors
target: http://127.0.0.1:1
load: { executor: per-vu-iterations, vus: 1, iterations: 1 }
requests:
  - { <<: *base, name: a, path: /a }
  - { name: b, path: /b, headers: *auth }
`;
    const scenario = parseScenario(readScenarioText(text));
    expect(scenario.requests[0]).toMatchObject({
      method: "POST",
      headers: { authorization: "Bearer t", "x-trace": "1" },
    });
    expect(scenario.requests[1].headers).toEqual({ authorization: "Bearer t" });
  });
});

describe("feeder columns", () => {
  const base = {
    name: "cols",
    target: "http://127.0.0.1:1",
    load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
  };
  it("name a header-less CSV's columns, and templates are checked against them", () => {
    const ok = parseScenario({
      ...base,
      data: { users: { file: "users.csv", columns: ["user", "password"] } },
      requests: [{ path: "/login?u={{data.users.user}}" }],
    });
    expect(ok.data.users.columns).toEqual(["user", "password"]);
    expect(
      issuesOf({
        ...base,
        data: { users: { file: "users.csv", columns: ["user", "password"] } },
        requests: [{ path: "/login?u={{data.users.name}}" }],
      }),
    ).toEqual([
      { path: "requests[0].path", message: '{{data.users.name}}: feeder "users" has no field "name"' },
    ]);
    expect(
      issuesOf({
        ...base,
        data: { users: { file: "users.json", columns: ["user"] } },
        requests: [{ path: "/" }],
      }),
    ).toEqual([
      { path: "data.users.columns", message: "columns name a CSV file's columns: give a .csv file" },
    ]);
  });
});
