import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { FLOW, SIGN } from "./support/script-sources.js";
import type { TargetServer } from "./support/target-server.js";

// Scripted VUs (`script:`) across two workers of two threads each, against a loopback server
// that counts: the same engine, stats, checks, groups and executors as declarative scenarios.
let fleet: TestFleet;
let target: TargetServer;
let master: RunningMaster;

beforeAll(async () => {
  // A thread silent for 4 s is blocked (10 s by default): the busy-loop test need not wait long.
  fleet = await startTestFleet({ workers: 2, threads: 2, threadStallMs: 4000 });
  ({ target, master } = fleet);
});
afterAll(() => fleet.close());

async function run(scenario: Record<string, unknown>, scripts: Record<string, string>): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, { scenario, scripts });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
}

describe("scripted virtual users", () => {
  it("run across two workers with exact counts; checks, groups and script errors reach the report", async () => {
    target.reset();
    const vus = 8;
    const iterations = 5;
    const report = await run(
      {
        name: "scripted",
        target: target.url,
        load: { executor: "per-vu-iterations", vus, iterations },
        script: "./flow.ts",
        thresholds: { "hello.p95": "<1s", checks: ">99%" },
      },
      { "flow.ts": FLOW, "lib/sign.ts": SIGN },
    );
    expect(report.status).toBe("finished");
    const total = vus * iterations;
    expect(target.counts.get("/hello")).toBe(total);
    expect(target.counts.get("/echo")).toBe(total);
    expect(target.counts.get("/status/404")).toBe(total);
    expect(report.summary.total.requests).toBe(target.total());
    expect(report.summary.total.failures).toBe(0);
    expect(report.workers.every((w) => w.requests > 0)).toBe(true);
    const names = report.summary.requests.map((r) => `${r.method} ${r.name}`).sort();
    expect(names).toEqual(["GET hello", "GET missing", "POST echo"]);
    expect(report.summary.groups?.map((g) => [g.name, g.requests])).toEqual([["pair", total]]);
    expect(report.summary.checks).toEqual([
      { name: "hello says hello", passes: total, fails: 0 },
      { name: "vars are kept", passes: total, fails: 0 },
    ]);
    // The throw on every VU's second iteration (line 16 of FLOW): once per iteration, kind script.
    expect(report.summary.errors).toEqual([
      expect.objectContaining({ kind: "script", count: vus, request: "./flow.ts" }),
    ]);
    expect(report.summary.errors[0].message).toMatch(
      /Cannot read properties of undefined.*\(flow\.ts:16:\d+\)$/,
    );
    expect(report.passed).toBe(true);
  });

  it("runs under an arrival rate and hands each iteration its own unique feeder row", async () => {
    target.reset();
    const rows = Array.from({ length: 30 }, (_, i) => ({ user: `u${i}` }));
    const report = await run(
      {
        name: "scripted-rate",
        target: target.url,
        load: { executor: "constant-arrival-rate", rate: 30, duration: "2s", maxVus: 10 },
        data: { users: { rows, mode: "unique", onExhausted: "stop" } },
        script: "rate.ts",
      },
      {
        "rate.ts": `export default async function (vu) {
          const row = vu.data.users.next();
          await vu.http.get("/user/" + row.user, { name: "user" });
        }`,
      },
    );
    expect(report.status).toBe("finished");
    const users = [...target.counts.keys()].filter((path) => path.startsWith("/user/"));
    // Every row once across the fleet; iterations past the rows end as script errors, not requests.
    expect(users.length).toBe(report.summary.total.requests);
    expect(new Set(users).size).toBe(users.length);
    expect(users.every((path) => (target.counts.get(path) ?? 0) === 1)).toBe(true);
    expect(report.summary.total.requests).toBeLessThanOrEqual(30);
    // On a busy machine an iteration not started on time is counted dropped and its thread's rows
    // stay unused: fewer rows are sent (23 once in CI), never a row twice. Each of the 60 scheduled
    // (30/s for 2 s) is counted once: sent, dropped, or skipped once its thread's rows ran out.
    const { requests, dropped, skippedIterations } = report.summary.total;
    expect(requests + dropped + (skippedIterations ?? 0)).toBe(60);
    // Those due before a thread began (the start is 300 ms away here) are among the dropped.
    expect(report.warnings.find((w) => w.kind === "late-start")?.count ?? 0).toBeLessThanOrEqual(dropped);
  });

  it("a scripted scenario runs beside a declarative one under scenarios:, each with its own executor", async () => {
    target.reset();
    const report = await run(
      {
        name: "scripted-mix",
        target: target.url,
        scenarios: {
          shoppers: {
            load: {
              executor: "ramping-vus",
              stages: [
                { duration: "1s", target: 3 },
                { duration: "1s", target: 3 },
              ],
            },
            script: "shop.ts",
          },
          pollers: {
            load: { executor: "per-vu-iterations", vus: 2, iterations: 10 },
            requests: [{ name: "poll", path: "/poll" }],
          },
        },
      },
      {
        "shop.ts": `export default async (vu) => { await vu.http.get("/shop", { name: "shop" }); await vu.sleep(50); }`,
      },
    );
    expect(report.status).toBe("finished");
    expect(target.counts.get("/poll")).toBe(20);
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, [r.scenario, r.requests]]));
    expect(byName).toEqual({ poll: ["pollers", 20], shop: ["shoppers", target.counts.get("/shop")] });
    expect(target.counts.get("/shop")).toBeGreaterThan(10);
    // Per-scenario totals, the scripted one's too (what its script records is scoped by it).
    expect(report.summary.scenarios?.map((s) => [s.name, s.requests])).toEqual([
      ["shoppers", target.counts.get("/shop")],
      ["pollers", 20],
    ]);
    expect(report.summary.total.requests).toBe(target.total());
  });

  it("setup() runs once in a sandbox before the load, its result reaches every VU, teardown() after", async () => {
    target.reset();
    const script = `
      export async function setup() {
        const answer = await fetch(process.env.VOLLEY_TEST_TARGET + "/login", { method: "POST", body: JSON.stringify({ user: "setup" }) });
        // fetch's json() is unknown to the type-checker: say what it holds.
        return { token: ((await answer.json()) as { token: string }).token };
      }
      export default async function (vu) {
        await vu.http.post("/orders", { headers: { authorization: "Bearer " + vu.setupData.token }, name: "order" });
      }
      export async function teardown(data) {
        await fetch(process.env.VOLLEY_TEST_TARGET + "/teardown?token=" + data.token);
      }`;
    // The hooks see the run's env values only (the master's own environment is not theirs).
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "scripted-setup",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 4, iterations: 2 },
        script: "setup.ts",
        env: ["VOLLEY_TEST_TARGET"],
      },
      scripts: { "setup.ts": script },
      env: { VOLLEY_TEST_TARGET: target.url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const report = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    // /orders answers 401 without the token setup() fetched.
    expect(report.summary.total).toMatchObject({ requests: 8, failures: 0 });
    expect(target.counts.get("/login")).toBe(1);
    await waitFor(() => target.counts.get("/teardown") === 1, {
      what: "teardown() to run",
      timeoutMs: 10_000,
    });
    expect(target.log.find((e) => e.url.startsWith("/teardown"))?.url).toBe("/teardown?token=t-setup");

    const failing = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "bad-setup",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        script: "s.ts",
      },
      scripts: {
        "s.ts":
          "export function setup() {\n  throw new Error('no test data');\n}\nexport default () => {};\n",
      },
    });
    expect(failing.status).toBe(400);
    expect(failing.body.details?.[0]).toEqual({
      path: "script",
      message: "setup() failed: no test data (s.ts:2:9)",
    });
  });

  it("a script that never awaits is stopped: its thread is ended and the run aborts saying why", async () => {
    target.reset();
    const started = Date.now();
    const report = await run(
      {
        name: "scripted-busy",
        target: target.url,
        load: { executor: "constant-vus", vus: 4, duration: "60s" },
        script: "busy.ts",
      },
      {
        "busy.ts": `export default async function (vu) {
          await vu.http.get("/hello", { name: "hello" });
          if (vu.number === 1 && vu.iteration === 3) for (;;) {}
          await vu.sleep(20);
        }`,
      },
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(report.status).toBe("aborted");
    expect(report.stopReason).toBe("script");
    expect(report.error).toMatch(
      /sent nothing for 4 s and was stopped: a script that never awaits \(a busy loop\)/,
    );
    // What the other threads measured is kept; what the blocked one sent before is too.
    expect(report.summary.total.requests).toBeGreaterThan(4);
    expect(report.summary.total.requests).toBeLessThanOrEqual(target.total());
  });

  it("credentials in the target or a url are sent as Basic authentication", async () => {
    target.reset();
    const host = new URL(target.url).host;
    const report = await run(
      {
        name: "scripted-credentials",
        target: `http://alice:s%40cret@${host}`,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
        script: "creds.ts",
      },
      {
        "creds.ts": `export default async (vu) => {
          await vu.http.get("/creds-a", { name: "a" });
          await vu.http.get("http://bob:pw@${host}/creds-b", { name: "b" });
        }`,
      },
    );
    expect(report.summary.total).toMatchObject({ requests: 4, failures: 0 });
    const auth = (path: string) => [
      ...new Set(target.log.filter((e) => e.url === path).map((e) => e.headers.authorization)),
    ];
    expect(auth("/creds-a")).toEqual([`Basic ${Buffer.from("alice:s@cret").toString("base64")}`]);
    expect(auth("/creds-b")).toEqual([`Basic ${Buffer.from("bob:pw").toString("base64")}`]);
  });

  it("requests a script does not await are answered and counted once before the next iteration", async () => {
    target.reset();
    const report = await run(
      {
        name: "scripted-unawaited",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 50 },
        script: "k6-habit.ts",
      },
      {
        // k6's http is synchronous: a k6 user writes the call without await.
        "k6-habit.ts": `export default function (vu) {
          vu.http.get("/hello", { name: "hello" });
          vu.http.get("http://127.0.0.1:9/refused", { name: "refused" });
        }`,
      },
    );
    expect(report.status).toBe("finished");
    expect(target.counts.get("/hello")).toBe(50);
    expect(report.summary.requests.map((r) => [r.name, r.requests, r.failures])).toEqual([
      ["hello", 50, 0],
      ["refused", 50, 50],
    ]);
    expect(report.summary.errors.map((e) => [e.kind, e.count])).toEqual([["connect", 50]]);
  });

  it("res.headers holds every header of the answer (made from the head's bytes when read), cookies and compression still work", async () => {
    target.reset();
    const report = await run(
      {
        name: "scripted-headers",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        http: { compression: true },
        script: "headers.ts",
      },
      {
        "headers.ts": `export default async (vu) => {
          const hello = await vu.http.get("/hello?i=" + vu.iteration, { name: "hello" });
          const h = hello.headers;
          vu.check("every header, lower-case names", h["content-type"] === "text/plain" && h["content-length"] === "11" && h["x-request-path"] === "/hello" && h.connection === "keep-alive" && typeof h.date === "string");
          const set = await vu.http.get("/cookie/set?name=sid&value=v" + vu.iteration + "&path=/", { name: "set" });
          vu.check("set-cookie", set.headers["set-cookie"] === "sid=v" + vu.iteration + "; Path=/");
          const packed = await vu.http.get("/compressed?as=gzip", { name: "packed" });
          vu.check("decoded", packed.headers["content-encoding"] === "gzip" && packed.json().token === "z-gzip");
          await vu.http.get("/hello?after", { name: "after" });
        }`,
      },
    );
    expect(report.status).toBe("finished");
    expect(report.summary.total).toMatchObject({ requests: 24, failures: 0 });
    expect(report.summary.checks).toEqual([
      { name: "every header, lower-case names", passes: 6, fails: 0 },
      { name: "set-cookie", passes: 6, fails: 0 },
      { name: "decoded", passes: 6, fails: 0 },
    ]);
    // The jar read Set-Cookie from the answer (its strings made by the client, not from res.headers).
    const cookies = target.log.filter((e) => e.url === "/hello?after").map((e) => e.headers.cookie);
    expect(cookies.sort()).toEqual(["sid=v0", "sid=v0", "sid=v1", "sid=v1", "sid=v2", "sid=v2"]);
  });

  it("vu.cookies gets, sets and clears the VU's jar; reset: iteration empties it at every iteration", async () => {
    target.reset();
    const report = await run(
      {
        name: "scripted-cookies",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
        http: { cookies: { reset: "iteration" } },
        script: "cookies.ts",
      },
      {
        "cookies.ts": `export default async (vu) => {
          vu.check("empty at the start", Object.keys(vu.cookies.get("/")).length === 0);
          await vu.http.get("/cookie/set?name=sid&value=s" + vu.iteration + "&path=/", { name: "give" });
          vu.cookies.set("/", "manual", "m" + vu.iteration);
          vu.check("both kept", vu.cookies.get("/").sid === "s" + vu.iteration && vu.cookies.get("/").manual === "m" + vu.iteration);
          await vu.http.get("/with?i=" + vu.iteration, { name: "with" });
          vu.cookies.clear();
          await vu.http.get("/without?i=" + vu.iteration, { name: "without" });
        }`,
      },
    );
    expect(report.summary.total).toMatchObject({ requests: 9, failures: 0 });
    // In the order the script makes them, not alphabetical.
    expect(report.summary.checks).toEqual([
      { name: "empty at the start", passes: 3, fails: 0 },
      { name: "both kept", passes: 3, fails: 0 },
    ]);
    const cookie = (path: string) =>
      target.log.filter((e) => e.url.startsWith(path)).map((e) => e.headers.cookie ?? null);
    expect(cookie("/with?")).toEqual(["sid=s0; manual=m0", "sid=s1; manual=m1", "sid=s2; manual=m2"]);
    expect(cookie("/without")).toEqual([null, null, null]);
  });

  it("a call with no options is prepared once, yet carries the cookie its VU was given since", async () => {
    target.reset();
    const report = await run(
      {
        name: "scripted-plain",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
        script: "plain.ts",
      },
      {
        "plain.ts": `export default async (vu) => {
          await vu.http.get("/hello");
          if (vu.iteration === 1) await vu.http.get("/cookie/set?name=sid&value=p&path=/", { name: "set" });
          await vu.http.get("/hello");
        }`,
      },
    );
    expect(report.summary.total).toMatchObject({ requests: 7, failures: 0 });
    expect(report.summary.requests.find((r) => r.name === "GET /hello")?.requests).toBe(6);
    const cookies = target.log.filter((e) => e.url === "/hello").map((e) => e.headers.cookie ?? null);
    expect(cookies).toEqual([null, null, null, "sid=p", "sid=p", "sid=p"]);
  });

  it("a request that gets no answer is one failure, not also a script error", async () => {
    const report = await run(
      {
        name: "scripted-refused",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        script: "refused.ts",
      },
      {
        "refused.ts": `export default async (vu) => { await vu.http.get("http://127.0.0.1:9/none", { name: "refused" }); }`,
      },
    );
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 6 });
    expect(report.summary.errors.map((e) => [e.kind, e.count])).toEqual([["connect", 6]]);
  });
});
