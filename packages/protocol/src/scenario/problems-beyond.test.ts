import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";

const valid = {
  name: "shop",
  target: "http://127.0.0.1:1",
  load: { executor: "constant-vus", vus: 2, duration: "5s" },
  data: { users: { rows: [{ name: "a" }] } },
  requests: [{ name: "login", path: "/login?u={{data.users.name}}" }],
};

describe("every problem of a scenario in one answer", () => {
  it("reads past a bad value to the templates and thresholds that depend on the rest", () => {
    expect(
      issuesOf({
        ...valid,
        load: { ...valid.load, vus: "ten" },
        requests: [{ name: "login", path: "/login?u={{data.nobody.name}}", timeout: "soon" }],
        thresholds: { "logon.p95": "<1s" },
      }),
    ).toEqual([
      { path: "load.vus", message: expect.stringContaining("number") },
      { path: "requests[0].timeout", message: expect.stringContaining("soon") },
      { path: "requests[0].path", message: expect.stringContaining("nobody") },
      { path: "thresholds.logon.p95", message: 'no request or group is named "logon"' },
    ]);
  });

  it("reads past a bad list: load beside scenarios comes with an empty scenario", () => {
    expect(
      issuesOf({
        name: "mix",
        target: "http://127.0.0.1:1",
        load: valid.load,
        scenarios: { a: { load: valid.load, requests: [] } },
      }),
    ).toEqual([
      { path: "scenarios.a.requests", message: "needs at least one request" },
      { path: "load", message: "goes inside each of scenarios, not beside them" },
    ]);
  });

  it("does not read past a value others name: no made-up problems of what refers to it", () => {
    // A broken feeder would make every template reading it look broken: its problem comes alone.
    expect(issuesOf({ ...valid, data: { users: { rows: "nope" } }, thresholds: { "x.p95": "<1s" } })).toEqual(
      [{ path: "data.users.rows", message: expect.any(String) }],
    );
    // A bad value whose neighbour then complains of its stand-in: only the bad value is named.
    expect(issuesOf({ ...valid, requests: [{ name: "login", path: "/login", method: 7 }] })).toEqual([
      { path: "requests[0].method", message: expect.any(String) },
    ]);
  });

  it("reads past at most 10 bad values: past that the answer names them alone", () => {
    const requests = Array.from({ length: 11 }, (_, i) => ({ name: `r${i}`, path: "/", timeout: "soon" }));
    const issues = issuesOf({ ...valid, requests, thresholds: { "nothing.p95": "<1s" } });
    expect(issues.map((i) => i.path)).toEqual(requests.map((_, i) => `requests[${i}].timeout`));
    requests.pop();
    expect(issuesOf({ ...valid, requests, thresholds: { "nothing.p95": "<1s" } }).at(-1)?.path).toBe(
      "thresholds.nothing.p95",
    );
  });
});
