import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  getJson,
  hold,
  isolatedSetup,
  killAll,
  type MasterProcess,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
  waitForRunSeconds,
} from "./support/processes.js";
import { freePort } from "./support/redis-server.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Several runs at once on disjoint worker pools, in real processes: each run exact against its
// own target's count, a run for a busy pool queued until that pool is free (and only that pool),
// a worker killed in one run and the master killed and restarted under both.
const targets: Record<"a" | "b" | "c", TargetServer> = {} as never;
beforeAll(async () => {
  for (const name of ["a", "b", "c"] as const) targets[name] = await startTargetServer();
});
afterAll(async () => {
  for (const target of Object.values(targets)) await target.close();
});
afterEach(async () => {
  await killAll();
  for (const target of Object.values(targets)) target.reset();
});

const onPool = (name: string, pool: string, target: TargetServer, load: Record<string, unknown>) => ({
  name,
  target: target.url,
  workers: { selector: { pool } },
  load,
  requests: [{ name: "hello", path: "/hello" }],
  thinkTime: "5ms",
});

async function post(master: MasterProcess, scenario: unknown, queue = false) {
  return sendJson("POST", `${master.url}/api/runs`, { scenario, ...(queue ? { queue: true } : {}) });
}

async function startPools(master: MasterProcess, names: string[]): Promise<void> {
  for (const name of names) {
    await startWorkerProcess(master.url, { name, args: ["--label", `pool=${name.slice(0, 1)}`] });
  }
}

describe("several runs at once", () => {
  it("runs on disjoint pools overlap, each exact; a run for a busy pool waits for that pool only", async () => {
    const master = await startMasterProcess(isolatedSetup());
    await startPools(master, ["a1", "a2", "b1", "b2"]);
    const a = await post(
      master,
      onPool("on-a", "a", targets.a, { executor: "constant-vus", vus: 4, duration: "4s" }),
    );
    const b = await post(
      master,
      onPool("on-b", "b", targets.b, { executor: "constant-vus", vus: 4, duration: "7s" }),
    );
    expect([a.status, a.body.status, b.status, b.body.status]).toEqual([201, "running", 201, "running"]);
    const c = await post(
      master,
      onPool("after-a", "a", targets.c, { executor: "per-vu-iterations", vus: 2, iterations: 15 }),
      true,
    );
    expect([c.status, c.body.status]).toEqual([201, "queued"]);
    // Without "queue": refused, naming the run that holds the pool.
    const refused = await post(
      master,
      onPool("jumper", "a", targets.c, { executor: "per-vu-iterations", vus: 1, iterations: 1 }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("VOL_ERR_RUN_ACTIVE");
    expect(refused.body.error).toContain('run "on-a"');

    // Both live at once: the live metrics carry each run under its own label.
    await waitForRunSeconds(master.url, a.body.id as string, 1);
    await waitForRunSeconds(master.url, b.body.id as string, 1);
    const metrics = await (await fetch(`${master.url}/metrics`)).text();
    expect(metrics).toMatch(/^volley_active_run 2$/m);
    for (const id of [a.body.id, b.body.id]) expect(metrics).toContain(`run="${id}"`);

    const runA = await waitForRunEnd<RunDetail>(master.url, a.body.id as string);
    const runC = await waitForRunEnd<RunDetail>(master.url, c.body.id as string);
    const runB = await waitForRunEnd<RunDetail>(master.url, b.body.id as string);
    for (const [run, target] of [
      [runA, targets.a],
      [runB, targets.b],
      [runC, targets.c],
    ] as const) {
      expect(run.status, run.name).toBe("finished");
      expect(run.summary.total.requests, run.name).toBe(target.total());
    }
    expect(runC.summary.total.requests).toBe(30);
    expect(runA.workers.map((w) => w.name).sort()).toEqual(["a1", "a2"]);
    expect(runB.workers.map((w) => w.name).sort()).toEqual(["b1", "b2"]);
    expect(runC.workers.map((w) => w.name).sort()).toEqual(["a1", "a2"]);
    const span = (run: RunDetail) => [
      Date.parse(run.startedAt as string),
      Date.parse(run.finishedAt as string),
    ];
    const [aStart, aEnd] = span(runA);
    const [bStart, bEnd] = span(runB);
    const [cStart] = span(runC);
    // A and B overlapped; C waited for pool a, not for B.
    expect(bStart).toBeLessThan(aEnd);
    expect(aStart).toBeLessThan(bEnd);
    expect(cStart).toBeGreaterThanOrEqual(aEnd);
    expect(cStart).toBeLessThan(bEnd);
  });

  it("a worker killed in one run leaves the other exact; a master restart resumes both", async () => {
    const setup = isolatedSetup();
    const port = await freePort();
    const env = { VOLLEY_INSTANCE_ID: "concurrent-master", VOLLEY_RUN_LEASE_MS: "3000" };
    const args = ["--port", String(port), "--heartbeat-timeout", "2"];
    const first = await startMasterProcess(setup, args, env);
    await startPools(first, ["a1", "a2", "b1", "b2"]);
    const doomed = await startWorkerProcess(first.url, { name: "a3", args: ["--label", "pool=a"] });
    const a = await post(
      first,
      onPool("faulty", "a", targets.a, { executor: "constant-vus", vus: 6, duration: "9s" }),
    );
    const b = await post(
      first,
      onPool("steady", "b", targets.b, { executor: "constant-vus", vus: 4, duration: "9s" }),
    );
    expect([a.status, b.status]).toEqual([201, 201]);
    await waitForRunSeconds(first.url, a.body.id as string, 2);
    doomed.signal("SIGKILL");
    await waitFor(
      async () => {
        const workers = await getJson<Array<{ name: string; state: string }>>(`${first.url}/api/workers`);
        return workers.find((w) => w.name === "a3")?.state === "lost";
      },
      { what: "the killed worker to be marked lost", timeoutMs: 10_000 },
    );
    first.signal("SIGKILL");
    await first.exited;
    await hold(1000); // the master stays down for a second while both runs' workers keep running
    const second = await startMasterProcess(setup, args, env);
    const steady = await waitForRunEnd<RunDetail>(second.url, b.body.id as string, 90_000);
    const faulty = await waitForRunEnd<RunDetail>(second.url, a.body.id as string, 90_000);
    expect(steady.status).toBe("finished");
    expect(steady.summary.total.requests).toBe(targets.b.total());
    expect(steady.workers.map((w) => [w.name, w.status])).toEqual([
      ["b1", "finished"],
      ["b2", "finished"],
    ]);
    expect(faulty.status).toBe("finished");
    expect(faulty.workers.find((w) => w.name === "a3")?.status).toBe("lost");
    expect(faulty.workers.filter((w) => w.name !== "a3").every((w) => w.status === "finished")).toBe(true);
    expect(faulty.summary.total.requests).toBe(faulty.workers.reduce((sum, w) => sum + w.requests, 0));
    // Only what the killed worker measured after its last batch is missing.
    const missing = targets.a.total() - faulty.summary.total.requests;
    expect(missing).toBeGreaterThanOrEqual(0);
    expect(missing).toBeLessThan(faulty.workers.find((w) => w.name === "a3")?.requests ?? 0);
  });
});
