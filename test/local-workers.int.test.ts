import { execFileSync, spawn } from "node:child_process";
import type { RunDetail, WorkerInfo } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  getJson,
  isolatedSetup,
  killAll,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
} from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
afterEach(() => killAll());

const localWorkers = async (url: string) =>
  (await getJson<WorkerInfo[]>(`${url}/api/workers`)).filter((w) => w.local && w.state !== "lost");

function processesNamed(fragment: string): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(fragment) && !line.includes("ps -eo"));
}

describe("local workers", () => {
  it("start from the API up to the limit, run, retire, and leave no process when the master stops", async () => {
    const master = await startMasterProcess(isolatedSetup(), ["--max-local-workers", "3"]);
    const started = await sendJson("POST", `${master.url}/api/workers/local`, { count: 2, threads: 1 });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ limit: 3 });
    const workers = await waitFor(
      async () => {
        const list = await localWorkers(master.url);
        return list.filter((w) => w.state === "ready").length === 2 ? list : undefined;
      },
      { what: "two local workers to be ready", timeoutMs: 20_000 },
    );
    expect(workers.every((w) => w.local)).toBe(true);

    const over = await sendJson("POST", `${master.url}/api/workers/local`, { count: 2, threads: 1 });
    expect(over).toMatchObject({ status: 400, body: { code: "VOL_ERR_LOCAL_WORKER_LIMIT" } });
    expect(over.body.error).toContain("at most 3");
    expect(
      (await sendJson("POST", `${master.url}/api/workers/local`, { count: 0 })).body.details?.[0].path,
    ).toBe("count");

    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "locals",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 4, iterations: 25 },
        requests: [{ path: "/hello" }],
      },
    });
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string);
    expect(run.summary.total.requests).toBe(100);
    expect(run.workers).toHaveLength(2);
    expect(run.workers.map((w) => w.requests)).toEqual([50, 50]);
    expect(run.workers.reduce((sum, w) => sum + w.share, 0)).toBeCloseTo(1);

    const retired = workers[0];
    expect((await sendJson("DELETE", `${master.url}/api/workers/${retired.id}`)).status).toBe(204);
    await waitFor(() => processesNamed(`--name ${retired.name} `).length === 0, {
      what: "the retired worker to exit",
    });
    expect((await localWorkers(master.url)).map((w) => w.name)).toEqual([workers[1].name]);

    master.signal("SIGTERM");
    expect(await master.exited).toBe(0);
    expect(processesNamed(workers[1].name)).toEqual([]);
  });

  it("a local worker that crashes is shown as lost and can be started again", async () => {
    const master = await startMasterProcess(isolatedSetup(), [
      "--max-local-workers",
      "2",
      "--heartbeat-timeout",
      "2",
    ]);
    await sendJson("POST", `${master.url}/api/workers/local`, { count: 1, threads: 1 });
    const [worker] = await waitFor(
      async () => {
        const list = await localWorkers(master.url);
        return list.length === 1 && list[0].state === "ready" ? list : undefined;
      },
      { what: "a local worker", timeoutMs: 20_000 },
    );
    const pid = Number(processesNamed(`--name ${worker.name} `)[0].trim().split(/\s+/)[0]);
    process.kill(pid, "SIGKILL");
    await waitFor(
      async () =>
        (await getJson<WorkerInfo[]>(`${master.url}/api/workers`)).find((w) => w.id === worker.id)?.state ===
        "lost",
      { what: "the crashed worker to be lost", timeoutMs: 8000 },
    );
    expect((await sendJson("POST", `${master.url}/api/workers/local`, { count: 1, threads: 1 })).status).toBe(
      202,
    );
    const [again] = await waitFor(
      async () => {
        const ready = (await localWorkers(master.url)).filter((w) => w.state === "ready");
        return ready.length ? ready : undefined;
      },
      { what: "a new local worker", timeoutMs: 20_000 },
    );
    // Even a master that dies without a word takes its local workers with it.
    master.signal("SIGKILL");
    await master.exited;
    await waitFor(() => processesNamed(`--name ${again.name} `).length === 0, {
      what: "the local worker to end with its master",
      timeoutMs: 10_000,
    });
  });
});

describe("saturation", () => {
  it("a worker pinned to a busy core is flagged in the live view and the report; an idle one is not", async () => {
    const master = await startMasterProcess(isolatedSetup());
    await startWorkerProcess(master.url, { name: "pinned", threads: 1, prefix: ["taskset", "-c", "0"] });
    // A light load: on a free core the worker stays far from its limits.
    const light = {
      name: "light",
      target: target.url,
      load: { executor: "constant-vus", vus: 2, duration: "4s" },
      requests: [{ path: "/hello" }],
      thinkTime: "50ms",
    };
    const calm = await waitForRunEnd<RunDetail>(
      master.url,
      (await sendJson("POST", `${master.url}/api/runs`, { scenario: light })).body.id as string,
    );
    // The worker itself stays far from saturation (starting its threads costs a burst of CPU in
    // the first second, more on a loaded machine). (Its core may still be flagged busy when other
    // processes load the machine, as they do when the suite runs beside a CPU burner: that is
    // the report doing its job, so only the worker's own figures are asserted here.)
    expect(calm.workers[0].peakCpu).toBeLessThan(85);
    for (const warning of calm.warnings) {
      expect(warning.peakCpu).toBeLessThan(85);
      // Whose CPU it was is said: its cores, or the machine's busy with other processes.
      expect(warning.message).toMatch(/cores busy/);
    }

    // The same load with a bounded CPU burner on the worker's core.
    const burner = spawn(
      "taskset",
      ["-c", "0", process.execPath, "-e", "const end = Date.now() + 30000; while (Date.now() < end) {}"],
      {
        stdio: "ignore",
      },
    );
    try {
      const created = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: { ...light, name: "busy" },
      });
      await waitFor(
        async () =>
          (await getJson<WorkerInfo[]>(`${master.url}/api/workers`)).find((w) => w.name === "pinned")
            ?.saturated,
        { what: "the worker to be flagged saturated", timeoutMs: 10_000 },
      );
      const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string);
      expect(run.warnings.length).toBeGreaterThan(0);
      expect(run.warnings[0]).toMatchObject({ workerName: "pinned" });
      expect(run.warnings[0].message).toContain("results may be limited by the load generator");
      expect(run.warnings[0].message).toMatch(/cores busy/);
      expect(run.warnings[0].toS).toBeGreaterThan(run.warnings[0].fromS);
      const html = await (await fetch(`${master.url}/api/runs/${run.id}/report.html`)).text();
      expect(html).toContain("results may be limited by the load generator");
    } finally {
      burner.kill("SIGKILL");
    }
  });
});
