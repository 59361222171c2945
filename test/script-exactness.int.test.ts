import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { isolatedSetup, sendJson, spawnCli, waitForRunEnd } from "./support/processes.js";

// What a k6 user writes first, measured exactly: requests a script does not await, several
// requests of one VU in flight at once (Promise.all, vu.http.batch), and type errors caught
// before anything is sent. The target counts what it receives and how many it holds at once.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 1, threads: 1 });
});
afterAll(() => fleet.close());

async function run(scenario: Record<string, unknown>, flow: string): Promise<RunDetail> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: { name: "exact", target: fleet.target.url, script: "./flow.ts", ...scenario },
    scripts: { "flow.ts": flow },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
}

const request = (report: RunDetail, name: string) => report.summary.requests.find((r) => r.name === name);

describe("scripts measure exactly what they send", () => {
  it("a request the script does not await is answered, counted once, and named where it was made", async () => {
    fleet.target.reset();
    const report = await run(
      { load: { executor: "per-vu-iterations", vus: 1, iterations: 50 } },
      [
        'import type { Vu } from "@volley/script";',
        "export default async function (vu: Vu) {",
        '  vu.http.get("/hello", { name: "hello" });',
        // A batch's requests are made deeper in the engine (its map): still named by the script's line.
        '  vu.http.batch([{ url: "/hello", name: "hello" }]);',
        // An alias the bundle cannot see as vu.http's: found by a stack once the script was seen.
        "  const fetchIt = vu.http.get;",
        '  fetchIt("/hello", { name: "hello" });',
        "}",
      ].join("\n"),
    );
    expect(report.status).toBe("finished");
    expect(fleet.target.counts.get("/hello")).toBe(150);
    expect(report.summary.total.requests).toBe(150);
    expect(report.summary.total.failures).toBe(0);
    expect(report.summary.total.iterations).toBe(50);
    const warnings = report.warnings.filter((w) => w.kind === "not-awaited");
    // Counted exactly from the first iteration. The bundle stamped the calls it saw with their
    // place, so those are named from the first; the alias is named from the second on.
    expect(warnings.reduce((sum, w) => sum + (w.count ?? 0), 0)).toBe(150);
    expect(warnings.find((w) => w.at === "flow.ts:3")?.count).toBe(50);
    expect(warnings.find((w) => w.at === "flow.ts:4")?.count).toBe(50);
    expect(warnings.find((w) => w.at === "flow.ts:6")?.count).toBe(49);
    expect(report.trust.reasons.map((r) => r.kind)).toContain("not-awaited");
  });

  it("Promise.all sends a VU's requests at once: the server holds both, latency is the server's delay", async () => {
    fleet.target.reset();
    const report = await run(
      { load: { executor: "per-vu-iterations", vus: 1, iterations: 10 } },
      [
        'import type { Vu } from "@volley/script";',
        "export default async function (vu: Vu) {",
        "  const [a, b] = await Promise.all([",
        '    vu.http.get("/slow?ms=30", { name: "a" }),',
        '    vu.http.get("/slow?ms=30", { name: "b" }),',
        "  ]);",
        '  vu.check("neither waited for a connection", a.timings.blocked < 10 && b.timings.blocked < 10);',
        "}",
      ].join("\n"),
    );
    expect(report.status).toBe("finished");
    expect(fleet.target.counts.get("/slow")).toBe(20);
    expect(fleet.target.inFlight.peak).toBe(2);
    for (const name of ["a", "b"]) {
      const latency = request(report, name)?.latencyMs;
      expect(latency?.p50).toBeGreaterThanOrEqual(29);
      // Serialised, the second would have waited for the first: 60 ms and more.
      expect(latency?.max).toBeLessThan(55);
    }
    expect(report.summary.checks).toEqual([
      { name: "neither waited for a connection", passes: 10, fails: 0 },
    ]);
  });

  it("vu.http.batch keeps http.maxConnectionsPerVu in flight; the rest wait as blocked time, not latency", async () => {
    fleet.target.reset();
    const report = await run(
      {
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        http: { maxConnectionsPerVu: 3 },
      },
      [
        'import type { Vu } from "@volley/script";',
        "export default async function (vu: Vu) {",
        "  const answers = await vu.http.batch(",
        '    Array.from({ length: 6 }, () => ({ url: "/slow?ms=40", name: "asset" })),',
        "  );",
        '  vu.check("six answers in order", answers.length === 6 && answers.every((a) => a.status === 200));',
        '  vu.check("the first three went at once", answers.slice(0, 3).every((a) => a.timings.blocked < 15));',
        '  vu.check("the last three waited for a slot", answers.slice(3).every((a) => a.timings.blocked >= 30));',
        "}",
      ].join("\n"),
    );
    expect(report.status).toBe("finished");
    expect(fleet.target.counts.get("/slow")).toBe(60);
    expect(report.summary.total.requests).toBe(60);
    // Two VUs, three each at most.
    expect(fleet.target.inFlight.peak).toBe(6);
    const asset = request(report, "asset");
    expect(asset?.latencyMs.p50).toBeGreaterThanOrEqual(39);
    expect(asset?.latencyMs.max).toBeLessThan(70);
    for (const check of report.summary.checks ?? []) expect(check).toMatchObject({ passes: 10, fails: 0 });
    expect(report.summary.checks).toHaveLength(3);
  });

  it("a type error refuses the run (400 naming script, file:line:col) and sends nothing", async () => {
    fleet.target.reset();
    const flow = [
      'import type { Vu } from "@volley/script";',
      "export default async function (vu: Vu) {",
      '  const res = await vu.http.get("/hello", { timeout: "2s" });',
      "  vu.check('ok', res.statuss === 200);",
      "}",
    ].join("\n");
    const refused = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "typed",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        script: "./flow.ts",
      },
      scripts: { "flow.ts": flow },
    });
    expect(refused.status).toBe(400);
    const details = refused.body.details as Array<{ path: string; message: string }>;
    expect(details.map((d) => d.path)).toEqual(["script", "script"]);
    expect(details[0].message).toMatch(/^flow\.ts:3:\d+: .*string.*number/);
    expect(details[1].message).toMatch(/^flow\.ts:4:\d+: Property 'statuss' does not exist/);
    // The same script with the check switched off runs (and its check fails every time).
    const unchecked = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "typed",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        script: "./flow.ts",
      },
      scripts: { "flow.ts": flow },
      typecheck: false,
    });
    expect(unchecked.status).toBe(201);
    const bad = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: { name: "typed", target: fleet.target.url, script: "./flow.ts" },
      scripts: { "flow.ts": flow },
      typecheck: "no",
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.details)).toContain("typecheck");
    await waitForRunEnd(fleet.master.url, unchecked.body.id as string);
    expect(fleet.target.counts.get("/hello")).toBe(1);
  });

  it("volley run type-checks before anything starts: exit 2 with file:line:col, nothing sent", async () => {
    fleet.target.reset();
    const dir = mkdtempSync(join(tmpdir(), "volley-typecheck-"));
    writeFileSync(
      join(dir, "flow.ts"),
      [
        'import type { Vu } from "@volley/script";',
        "export default async function (vu: Vu) {",
        '  const res = await vu.http.get("/hello");',
        "  if (res.statuss !== 200) throw new Error('down');",
        "}",
      ].join("\n"),
    );
    const scenario = {
      name: "cli-typed",
      target: fleet.target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      script: "./flow.ts",
    };
    writeFileSync(join(dir, "scenario.json"), JSON.stringify(scenario));
    const setup = isolatedSetup();
    const env = { DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix };
    const refused = spawnCli(["run", "scenario.json", "--threads", "1"], env, dir);
    expect(await refused.exited).toBe(2);
    expect(refused.output.join("")).toMatch(/script: flow\.ts:4:\d+: Property 'statuss' does not exist/);
    expect(fleet.target.total()).toBe(0);
    const unchecked = spawnCli(["run", "scenario.json", "--threads", "1", "--no-typecheck"], env, dir);
    // It runs; `statuss` is undefined, so every iteration throws (a script error, exit 0 without thresholds).
    expect(await unchecked.exited).toBe(0);
    expect(fleet.target.counts.get("/hello")).toBe(2);
  });
});
