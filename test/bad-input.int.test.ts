import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";
import { rawRequest } from "./support/raw-http.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
let master: RunningMaster;
let worker: WorkerNode;

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster();
  worker = await startTestWorker(master, { name: "bad-input" });
});
afterAll(async () => {
  await worker?.shutdown(2000);
  await master?.close();
  await target?.close();
});

const scenario = (extra: Record<string, unknown> = {}) => ({
  name: "bad",
  target: target.url,
  load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
  requests: [{ path: "/hello" }],
  ...extra,
});

// Built as text: JSON.stringify of such a value would overflow this process's stack first.
const DEEP = "__DEEP__";
const nested = (depth: number) => `${DEEP}${depth}`;
function toJson(body: unknown): string {
  return JSON.stringify(body).replace(
    /"__DEEP__(\d+)"/g,
    (_, n) => `${'{"a":'.repeat(Number(n))}{}${"}".repeat(Number(n))}`,
  );
}

async function runsCount(): Promise<number> {
  return (await master.services.db.runs.list({ limit: 500 })).length;
}

describe("bad input is a 400 naming the field, never a 500", () => {
  it.each([
    ["thresholds.p95", { thresholds: { p95: "<<<" } }],
    ["thresholds.bogus", { thresholds: { bogus: "<1" } }],
    ["thresholds.p95", { thresholds: { p95: "" } }],
    ["thresholds.p95", { thresholds: { p95: "<1parsec" } }],
    ["requests[0].body", { requests: [{ path: "/", body: nested(5000) }] }],
    ["requests[0].body", { requests: [{ path: "/", body: nested(3500) }] }],
    ["requests[0].body", { requests: [{ path: "/", body: [nested(100)] }] }],
    ["load.duration", { load: { executor: "constant-vus", vus: 1, duration: "0s" } }],
    ["load.duration", { load: { executor: "constant-arrival-rate", rate: 1, maxVus: 1, duration: "0ms" } }],
    ["load.stages", { load: { executor: "ramping-vus", stages: [{ duration: "0s", target: 5 }] } }],
    ["timeout", { timeout: "0s" }],
    ["load", { load: undefined }],
  ])("%s", async (path, extra) => {
    const before = await runsCount();
    const raw = await rawRequest(master.url, "POST", "/api/runs", {}, toJson({ scenario: scenario(extra) }));
    expect(raw.status, raw.body.slice(0, 300)).toBe(400);
    const answer = raw.json() as { code: string; details: Array<{ path: string }> };
    expect(answer.code).toBe("VOL_ERR_VALIDATION");
    expect(answer.details.map((d) => d.path)).toContain(path);
    expect(await runsCount()).toBe(before);
  });

  it("a body too deep for the JSON parser itself is a 400 too", async () => {
    const body = `{"scenario":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
    const answer = await rawRequest(master.url, "POST", "/api/runs", {}, body);
    expect(answer.status, answer.body.slice(0, 200)).toBe(400);
    expect(answer.json()).toHaveProperty("code");
  });

  it("a missing load says it is required", async () => {
    const answer = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario({ load: undefined }),
    });
    expect(answer.body.details).toContainEqual({ path: "load", message: "is required" });
  });

  it("a report format is looked up as its own key, not an inherited one", async () => {
    const run = await waitForRunEnd<RunDetail>(
      master.url,
      (await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario() })).body.id as string,
    );
    for (const format of ["toString", "__proto__", "constructor", "valueOf", "hasOwnProperty"]) {
      const answer = await rawRequest(master.url, "GET", `/api/runs/${run.id}/report.${format}`);
      expect(answer.status, format).toBe(404);
      expect(answer.json().code).toBe("VOL_ERR_NOT_FOUND");
    }
    expect((await rawRequest(master.url, "GET", `/api/runs/${run.id}/report.csv`)).status).toBe(200);
  });

  it("request names that look like formulas are neutralised in report.csv", async () => {
    const names = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3"];
    const run = await waitForRunEnd<RunDetail>(
      master.url,
      (
        await sendJson("POST", `${master.url}/api/runs`, {
          scenario: scenario({ requests: names.map((name) => ({ name, path: "/hello" })) }),
        })
      ).body.id as string,
    );
    const csv = (await rawRequest(master.url, "GET", `/api/runs/${run.id}/report.csv`)).body;
    const cells = csv
      .split("\n")
      .slice(1, -2)
      .map((line) => line.slice(0, 3));
    expect(cells).toHaveLength(4);
    for (const cell of cells) expect(cell).toMatch(/^"'[=+@-]/);
  });
});
