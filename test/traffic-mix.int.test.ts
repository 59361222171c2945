import type { RunningMaster } from "@volley/master";
import type { RunDetail, Timeseries } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

// A weighted mix of journeys with a group and a repeat, across two workers of two threads, checked
// against what the server counted.
describe("traffic mix: flows, groups, repeats", () => {
  let fleet: TestFleet;
  let target: TargetServer;
  let master: RunningMaster;

  beforeAll(async () => {
    fleet = await startTestFleet({ workers: 2, threads: 2 });
    ({ target, master } = fleet);
  });
  afterAll(() => fleet.close());

  it("runs flows by weight, times groups first-sent to last-answered, repeats exactly", async () => {
    const iterations = 2000;
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "shop-mix",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 8, iterations: iterations / 8 },
        flows: [
          { name: "browse", weight: 3, requests: [{ name: "look", path: "/look" }] },
          {
            name: "checkout",
            weight: 1,
            requests: [
              {
                group: "pay",
                requests: [
                  { name: "cart", path: "/slow?ms=15" },
                  { repeat: 2, requests: [{ name: "poll", path: "/poll" }] },
                ],
              },
            ],
          },
        ],
        thresholds: { "pay.p50": ">=15ms", "pay.p99": "<1ms", "look.errorRate": "<1%" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(run.status).toBe("finished");

    const looks = target.counts.get("/look") ?? 0;
    const carts = target.counts.get("/slow") ?? 0;
    expect(looks + carts).toBe(iterations);
    // Weights 3:1 within 5 %.
    expect(looks / iterations).toBeGreaterThan(0.75 * 0.95);
    expect(looks / iterations).toBeLessThan(0.75 * 1.05);
    expect(target.counts.get("/poll")).toBe(2 * carts);

    // Totals are the requests the server saw; groups are reported beside them, not among them.
    expect(run.summary.total.requests).toBe(target.total());
    expect(run.workers.reduce((sum, w) => sum + w.requests, 0)).toBe(target.total());
    const byName = Object.fromEntries(run.summary.requests.map((r) => [r.name, r]));
    expect(byName.look).toMatchObject({ requests: looks, flow: "browse" });
    expect(byName.cart).toMatchObject({ requests: carts, flow: "checkout" });
    expect(byName.poll).toMatchObject({ requests: 2 * carts, flow: "checkout" });
    const pay = run.summary.groups?.find((g) => g.name === "pay");
    expect(pay).toMatchObject({ method: "GROUP", requests: carts, failures: 0 });
    // A group lasts at least its slow request, and at least as long as its requests together.
    // (The server's 15 ms timer may fire up to a millisecond early: node times it from the
    // event loop's cached clock. CI once read 14.89 ms.)
    expect(pay?.latencyMs.min).toBeGreaterThanOrEqual(14);
    expect(pay?.latencyMs.mean).toBeGreaterThanOrEqual(
      byName.cart.latencyMs.mean + 2 * byName.poll.latencyMs.mean * 0.9,
    );
    expect(run.summary.errors).toEqual([]);

    // Thresholds reach groups and requests by NAME.metric.
    expect(run.thresholds).toEqual([
      expect.objectContaining({ key: "pay.p50", pass: true }),
      expect.objectContaining({ key: "pay.p99", pass: false }),
      expect.objectContaining({ key: "look.errorRate", pass: true }),
    ]);
    expect(run.passed).toBe(false);

    // Compared with itself, the group is a section of its own.
    const compared = await (await fetch(`${master.url}/api/compare?a=${run.id}&b=${run.id}`)).json();
    expect(compared.groups).toEqual([expect.objectContaining({ name: "pay" })]);
    expect(compared.groups[0].metrics.p50).toMatchObject({ a: pay?.latencyMs.p50, b: pay?.latencyMs.p50 });

    // The HTML and CSV reports show the group.
    const html = await (await fetch(`${master.url}/api/runs/${run.id}/report.html`)).text();
    expect(html).toContain("Groups");
    // A group has no bytes of its own: "–", not "0 B".
    expect(html).toMatch(/<tr><td>pay<\/td>.*<td>–<\/td><td>–<\/td><\/tr>/);
    const csv = await (await fetch(`${master.url}/api/runs/${run.id}/report.csv`)).text();
    expect(csv).toMatch(/\npay,GROUP,/);
  });

  it("requests with expect are checks: counted per name, judged by checks thresholds", async () => {
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "checked",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 8 },
        requests: [
          { name: "ok", path: "/hello", expect: { status: 200, body: "hello" } },
          // Iterations 0-7 ask for 200-207: one answer in eight meets the expectation.
          { name: "mixed", path: "/status/20{{iter}}", expect: { status: 200 } },
          { name: "unchecked", path: "/hello" },
        ],
        thresholds: { checks: ">=50%", "mixed.checks": ">99%", "ok.checks": ">=100%" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(run.summary.checks).toEqual([
      { name: "ok", passes: 8, fails: 0 },
      { name: "mixed", passes: 1, fails: 7 },
    ]);
    expect(run.thresholds.map((t) => [t.key, t.actual, t.pass])).toEqual([
      ["checks", 9 / 16, true],
      ["mixed.checks", 1 / 8, false],
      ["ok.checks", 1, true],
    ]);
    expect(run.passed).toBe(false);
    const csv = await (await fetch(`${master.url}/api/runs/${run.id}/report.csv`)).text();
    expect(csv).toMatch(/\nmixed,CHECK,8,7,/);
  });

  it("abortOnFail stops the run as soon as the merged data breaks the threshold", async () => {
    const started = Date.now();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "abort-on-fail",
        target: target.url,
        load: { executor: "constant-vus", vus: 4, duration: "60s" },
        requests: [{ name: "broken", path: "/status/500" }],
        thinkTime: "5ms",
        thresholds: {
          errorRate: { threshold: "<10%", abortOnFail: true, delayAbortEval: "1s" },
          p95: "<10s",
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.status).toBe("aborted");
    expect(run.stopReason).toBe("threshold");
    expect(run.thresholds).toEqual([
      expect.objectContaining({ key: "errorRate", pass: false, actual: 1 }),
      expect.objectContaining({ key: "p95", pass: true }),
    ]);
    // Nothing measured is lost by the stop.
    expect(run.summary.total.requests).toBe(target.counts.get("/status/500"));
  });

  it("scenarios: several loads at once, each with its own executor, started together", async () => {
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "shop-at-once",
        target: target.url,
        scenarios: {
          browse: {
            load: { executor: "constant-vus", vus: 4, duration: "3s" },
            thinkTime: "20ms",
            flows: [
              { name: "look", weight: 3, requests: [{ name: "item", path: "/item?vu={{vu}}" }] },
              { name: "find", requests: [{ name: "search", path: "/search?vu={{vu}}" }] },
            ],
          },
          checkout: {
            load: { executor: "constant-arrival-rate", rate: 20, duration: "3s", maxVus: 40 },
            requests: [{ name: "pay", path: "/pay?vu={{vu}}" }],
          },
        },
        thresholds: { "pay.p99": "<1s" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    // Four engine threads on two cores, in this process, may begin after the scheduled start
    // (300 ms away here): the pays due before are dropped, each counted and explained by the
    // late-start warning, none sent late and timed from its schedule.
    const lateStart = run.warnings.find((w) => w.kind === "late-start")?.count ?? 0;
    const dropped = run.summary.total.dropped;
    expect(run.status).toBe("finished");
    expect(run.passed).toBe(true);
    // The arrival rate's rate x duration iterations each counted once, beside the closed-model
    // VUs: sent, or dropped for a late start (never for want of a VU: maxVus is ample).
    expect({ pay: target.counts.get("/pay"), dropped }).toEqual({ pay: 60 - lateStart, dropped: lateStart });
    expect(run.summary.total.requests).toBe(target.total());
    const byName = Object.fromEntries(run.summary.requests.map((r) => [r.name, r]));
    expect(byName.item).toMatchObject({ scenario: "browse", flow: "look" });
    expect(byName.search).toMatchObject({ scenario: "browse", flow: "find" });
    expect(byName.pay).toMatchObject({ scenario: "checkout", requests: 60 - lateStart });
    expect(byName.pay.flow).toBeUndefined();
    // Each scenario's requests together, exact: the sum of its requests.
    expect(run.summary.scenarios).toEqual([
      expect.objectContaining({ name: "browse", requests: byName.item.requests + byName.search.requests }),
      expect.objectContaining({ name: "checkout", requests: 60 - lateStart }),
    ]);
    expect(run.summary.scenarios?.[1].latencyMs).toEqual(byName.pay.latencyMs);
    const csv = await (await fetch(`${master.url}/api/runs/${run.id}/report.csv`)).text();
    expect(csv).toMatch(new RegExp(`\\ncheckout,SCENARIO,${60 - lateStart},`));
    // VU numbers stay unique across the parts: browse 1-4 (up to 16 when raised), checkout after 16.
    const vusOf = (path: string) =>
      new Set(
        target.log
          .filter((e) => e.url.startsWith(path))
          .map((e) => Number(new URL(e.url, "http://x").searchParams.get("vu"))),
      );
    expect([...vusOf("/item"), ...vusOf("/search")].every((vu) => vu >= 1 && vu <= 4)).toBe(true);
    expect([...vusOf("/pay")].every((vu) => vu >= 17 && vu <= 56)).toBe(true);

    // The timeseries: each scenario as its own series, and filtered to one scenario.
    const sum = (points: Array<{ rps: number }>) => points.reduce((n, p) => n + p.rps, 0);
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${run.id}/timeseries`);
    expect(Object.keys(series.scenarios)).toEqual(["browse", "checkout"]);
    expect(sum(series.scenarios.browse)).toBe(run.summary.scenarios?.[0].requests);
    expect(sum(series.scenarios.checkout)).toBe(60 - lateStart);
    const checkout = await getJson<Timeseries>(
      `${master.url}/api/runs/${run.id}/timeseries?scenario=checkout`,
    );
    // Per-request series of a scenario's requests are kept under "SCENARIO · NAME".
    expect(Object.keys(checkout.requests)).toEqual(["checkout · pay"]);
    expect(checkout.overall).toHaveLength(series.overall.length);
    expect(sum(checkout.overall)).toBe(60 - lateStart);
    expect(checkout.overall.some((p) => p.p99 !== null && p.p99 > 0)).toBe(true);
    const unknown = await sendJson("GET", `${master.url}/api/runs/${run.id}/timeseries?scenario=nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([
      { path: "scenario", message: `run ${run.id} has no scenario "nope" (it has browse, checkout)` },
    ]);

    // Load beside scenarios is refused.
    const bad = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "bad-mix",
        target: target.url,
        scenarios: {
          a: { load: { executor: "constant-vus", vus: 1, duration: "1s" }, requests: [{ path: "/" }] },
        },
        load: { executor: "constant-vus", vus: 1, duration: "1s" },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { path: "load", message: "goes inside each of scenarios, not beside them" },
    ]);
  });

  it("the same request and group names in several scenarios: each scenario's statistics apart", async () => {
    target.reset();
    // "login" and the group "pay" in both scenarios; "cart" is a request in one and a group in the other.
    const part = (prefix: string, iterations: number, cart: Record<string, unknown>) => ({
      load: { executor: "per-vu-iterations", vus: 2, iterations },
      requests: [
        { name: "login", path: `/${prefix}/login`, expect: { status: 200 } },
        { group: "pay", requests: [cart] },
      ],
    });
    const scenario = (thresholds: Record<string, string>) => ({
      name: "shared-names",
      target: target.url,
      scenarios: {
        web: part("web", 30, { name: "cart", path: "/web/cart" }),
        app: part("app", 20, { group: "cart", requests: [{ name: "add", path: "/app/cart" }] }),
      },
      thresholds,
    });
    // A name two scenarios use must say which one a threshold judges.
    const ambiguous = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario({ "login.p95": "<1s" }),
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.details).toEqual([
      {
        path: "thresholds.login.p95",
        message: '"login" is a name of several scenarios: write one of "web · login", "app · login"',
      },
    ]);
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario({
        "web · login.requests": "==60",
        "add.requests": "==40",
        "app · login.checks": ">99%",
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(run.status).toBe("finished");
    // Each scenario's "login" is its own, with the count its server path saw.
    const of = (scenario: string, name: string) =>
      run.summary.requests.find((r) => r.scenario === scenario && r.name === name);
    expect(of("web", "login")?.requests).toBe(target.counts.get("/web/login"));
    expect(of("app", "login")?.requests).toBe(target.counts.get("/app/login"));
    expect([target.counts.get("/web/login"), target.counts.get("/app/login")]).toEqual([60, 40]);
    expect(of("web", "cart")?.requests).toBe(60);
    expect(of("app", "add")?.requests).toBe(40);
    const groups = (run.summary.groups ?? []).map((g) => [g.scenario, g.name, g.requests]);
    expect(groups).toEqual(
      expect.arrayContaining([
        ["web", "pay", 60],
        ["app", "pay", 40],
        ["app", "cart", 40],
      ]),
    );
    expect(groups).toHaveLength(3);
    expect(run.summary.total.requests).toBe(target.total());
    expect(run.summary.checks).toEqual([
      { name: "web · login", passes: 60, fails: 0 },
      { name: "app · login", passes: 40, fails: 0 },
    ]);
    expect(run.thresholds.map((t) => [t.key, t.actual, t.pass])).toEqual([
      ["web · login.requests", 60, true],
      ["add.requests", 40, true],
      ["app · login.checks", 1, true],
    ]);
    // Each scenario's own series, and the reports name both apart.
    const series = await getJson<Timeseries>(`${master.url}/api/runs/${run.id}/timeseries`);
    expect(Object.keys(series.requests)).toEqual(
      expect.arrayContaining(["web · login", "app · login", "web · cart", "app · add"]),
    );
    const csv = await (await fetch(`${master.url}/api/runs/${run.id}/report.csv`)).text();
    expect(csv).toMatch(/\nweb · login,GET,60,0,/);
    expect(csv).toMatch(/\napp · login,GET,40,0,/);
    const compared = await getJson<{ requests: Array<{ name: string }> }>(
      `${master.url}/api/compare?a=${run.id}&b=${run.id}`,
    );
    expect(compared.requests.map((r) => r.name)).toEqual(
      expect.arrayContaining(["web · login", "app · login"]),
    );
  });
});
