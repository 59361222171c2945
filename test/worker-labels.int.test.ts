import type { RunningMaster } from "@volley/master";
import type { RunDetail, WorkerInfo } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, spawnCli, startWorkerProcess, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Worker labels and a scenario's `workers: { selector, count }`: a run goes to the workers it
// picks, and only to them; the target's own count matches the report.
let master: RunningMaster;
let target: TargetServer;
const nodes: WorkerNode[] = [];

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster();
  nodes.push(await startTestWorker(master, { name: "eu-1", labels: { pool: "eu", tier: "big" } }));
  nodes.push(await startTestWorker(master, { name: "eu-2", labels: { pool: "eu" } }));
  nodes.push(await startTestWorker(master, { name: "us-1", labels: { pool: "us" } }));
});
afterAll(async () => {
  for (const node of nodes) await node.shutdown(2000);
  await master?.close();
  await target?.close();
});

const scenario = (name: string, workers?: unknown) => ({
  name,
  target: target.url,
  load: { executor: "shared-iterations", vus: 6, iterations: 60 },
  requests: [{ path: `/${name}` }],
  ...(workers ? { workers } : {}),
});

async function run(name: string, workers?: unknown): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario(name, workers) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd(master.url, created.body.id as string, 30_000);
}

describe("worker labels and selectors", () => {
  it("lists each worker's labels", async () => {
    const workers = await getJson<WorkerInfo[]>(`${master.url}/api/workers`);
    expect(workers.find((w) => w.name === "eu-1")?.labels).toEqual({ pool: "eu", tier: "big" });
    expect(workers.find((w) => w.name === "us-1")?.labels).toEqual({ pool: "us" });
  });

  it("runs on the workers whose labels match, every request counted once", async () => {
    const done = await run("on-eu", { selector: { pool: "eu" } });
    expect(done.status).toBe("finished");
    expect(done.workers.map((w) => w.name).sort()).toEqual(["eu-1", "eu-2"]);
    expect(done.summary.total.requests).toBe(60);
    expect(target.counts.get("/on-eu")).toBe(60);
    const two = await run("big-eu", { selector: { pool: "eu", tier: "big" } });
    expect(two.workers.map((w) => w.name)).toEqual(["eu-1"]);
    expect(target.counts.get("/big-eu")).toBe(60);
  });

  it("takes count of the matching workers, and every free one without a selector", async () => {
    const one = await run("one-eu", { selector: { pool: "eu" }, count: 1 });
    expect(one.workers.map((w) => w.name)).toEqual(["eu-1"]);
    expect(target.counts.get("/one-eu")).toBe(60);
    const all = await run("anywhere");
    expect(all.workers.map((w) => w.name).sort()).toEqual(["eu-1", "eu-2", "us-1"]);
    expect(target.counts.get("/anywhere")).toBe(60);
  });

  it("refuses a selector no free worker matches, naming it, and a malformed one, naming the field", async () => {
    const none = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario("on-asia", { selector: { pool: "asia" } }),
    });
    expect(none.status).toBe(409);
    expect(none.body.error).toContain("pool=asia");
    const tooMany = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario("four-eu", { selector: { pool: "eu" }, count: 4 }),
    });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error).toContain("needs 4 free workers matching pool=eu; 2 are free");
    const bad = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: scenario("bad", { selector: { "no spaces": "x" } }),
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.details)).toContain("workers.selector");
    expect(target.counts.get("/on-asia")).toBeUndefined();
  });

  it("takes labels from --label and VOLLEY_LABELS, and exits 2 on a bad one", async () => {
    const flagged = await startWorkerProcess(master.url, {
      name: "cli-labelled",
      args: ["--label", "pool=ap", "--label", "rack=7"],
    });
    const fromEnv = await startWorkerProcess(master.url, {
      name: "env-labelled",
      env: { VOLLEY_LABELS: "pool=ap, tier=small" },
    });
    const workers = await getJson<WorkerInfo[]>(`${master.url}/api/workers`);
    expect(workers.find((w) => w.name === "cli-labelled")?.labels).toEqual({ pool: "ap", rack: "7" });
    expect(workers.find((w) => w.name === "env-labelled")?.labels).toEqual({ pool: "ap", tier: "small" });
    flagged.signal("SIGTERM");
    fromEnv.signal("SIGTERM");
    await Promise.all([flagged.exited, fromEnv.exited]);
    const bad = spawnCli(["worker", "--master", master.url, "--label", "pool"]);
    expect(await bad.exited).toBe(2);
    expect(bad.output.join("")).toContain("--label");
  });
});
