import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// A declarative `parallel` step: a page's assets sent together, each on a connection of the VU's
// own, http.maxConnectionsPerVu at a time. The target counts what it receives and how many it
// holds at once; latency must be the server's delay, never the wait for a free connection.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 1, threads: 2 });
});
afterAll(() => fleet.close());

async function run(scenario: Record<string, unknown>): Promise<RunDetail> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: { name: "parallel", target: fleet.target.url, ...scenario },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
}

const named = (report: RunDetail, name: string) =>
  [...report.summary.requests, ...(report.summary.groups ?? [])].find((r) => r.name === name);

describe("parallel steps", () => {
  it("sends a step's requests together, maxConnectionsPerVu at a time, timed from their connection", async () => {
    fleet.target.reset();
    const report = await run({
      load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
      http: { maxConnectionsPerVu: 2, followRedirects: 2 },
      requests: [
        { name: "page", path: "/hello" },
        {
          group: "assets",
          requests: [
            {
              parallel: [
                { name: "a", path: "/slow?ms=100" },
                { name: "b", path: "/slow?ms=100" },
                { name: "c", path: "/slow?ms=100" },
                { name: "hop", path: "/redirect?to=/slow%3Fms%3D100", expect: { status: 200 } },
              ],
            },
          ],
        },
        { name: "after", path: "/echo" },
      ],
    });
    expect(report.status).toBe("finished");
    // 2 VUs x 5 iterations: 4 parallel requests each, the redirect's hop landing on /slow too.
    expect(fleet.target.counts.get("/slow")).toBe(40);
    expect(fleet.target.counts.get("/redirect")).toBe(10);
    expect(fleet.target.counts.get("/hello")).toBe(10);
    expect(fleet.target.counts.get("/echo")).toBe(10);
    expect(report.summary.total.requests).toBe(fleet.target.total());
    expect(report.summary.total.failures).toBe(0);
    // Two VUs, two each at once.
    expect(fleet.target.inFlight.peak).toBe(4);
    for (const name of ["a", "b", "c"]) {
      const latency = named(report, name)?.latencyMs;
      expect(latency?.min).toBeGreaterThanOrEqual(99);
      // Timed from the wait for a free connection, c would take 200 ms and more (100 ms waves
      // keep the two apart on a loaded machine).
      expect(latency?.max).toBeLessThan(170);
    }
    // The redirect is a hop of its name, judged once on its final answer.
    expect(named(report, "hop")).toMatchObject({ requests: 20, redirects: 10, failures: 0 });
    expect(report.summary.checks).toEqual([{ name: "hop", passes: 10, fails: 0 }]);
    // Two waves of 100 ms: the group runs from the first request sent to the last answered.
    expect(named(report, "assets")?.latencyMs.min).toBeGreaterThanOrEqual(199);
    expect(report.summary.total.iterations).toBe(10);
    // The step comes before "after" in every iteration: "after" never overlaps the assets.
    const log = fleet.target.log;
    const echoes = log.filter((e) => e.url === "/echo");
    expect(echoes).toHaveLength(10);
  });

  it("a stop in the middle of a parallel step: what reached the server is counted, the rest never sent", async () => {
    fleet.target.reset();
    const report = await run({
      load: { executor: "constant-vus", vus: 3, duration: "2s", gracefulStop: "300ms" },
      http: { maxConnectionsPerVu: 2 },
      requests: [
        {
          parallel: [
            { name: "slow1", path: "/slow?ms=700" },
            { name: "slow2", path: "/slow?ms=700" },
            { name: "slow3", path: "/slow?ms=700" },
          ],
        },
      ],
    });
    expect(report.status).toBe("finished");
    expect(report.summary.total.requests).toBe(fleet.target.total());

    const aborted = report.summary.errors.find((e) => e.kind === "aborted");
    expect(aborted?.count).toBeGreaterThan(0);
    expect(fleet.target.inFlight.peak).toBeLessThanOrEqual(6);
  });

  it("refuses a parallel step of one request, or with a group inside, naming the field", async () => {
    const one = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "bad",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ parallel: [{ path: "/a" }] }],
      },
    });
    expect(one.status).toBe(400);
    expect(one.body.details).toContainEqual({
      path: "requests[0].parallel",
      message: "a parallel step sends at least 2 requests",
    });
    const nested = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "bad",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ parallel: [{ path: "/a" }, { group: "g", requests: [{ path: "/b" }] }] }],
      },
    });
    expect(nested.status).toBe(400);
    expect(JSON.stringify(nested.body.details)).toContain("requests[0].parallel[1]");
  });
});
