import type { RunDetail } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { processSuite } from "./support/process-suite.js";
import {
  hold,
  isolatedSetup,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
} from "./support/processes.js";

// A master whose event loop stops for longer than the heartbeat timeout (kill -STOP, a huge
// request to parse) heard nothing meanwhile: that silence is not the workers'. The run goes on
// to its end and its report equals the target's count; the next queued run starts as it should.
const suite = processSuite();

const scenario = (name: string, duration: string) => ({
  name,
  target: suite.target.url,
  load: { executor: "constant-vus", vus: 4, duration },
  requests: [{ name: "hello", path: "/hello" }],
  thinkTime: "5ms",
});

async function startRun(masterUrl: string, body: Record<string, unknown>): Promise<string> {
  const created = await sendJson("POST", `${masterUrl}/api/runs`, body);
  expect([201, 202], JSON.stringify(created.body)).toContain(created.status);
  return created.body.id as string;
}

function expectWhole(run: RunDetail, count: number): void {
  expect(run.status).toBe("finished");
  expect(run.summary.total.requests).toBe(count);
  expect(run.warnings.filter((w) => w.kind === "worker-lost")).toEqual([]);
  expect(run.workers.map((w) => w.status)).toEqual(["finished", "finished"]);
}

describe("a stalled master", () => {
  it("kill -STOP for 7 s (heartbeat timeout 5 s): the run is whole, its workers are not lost", async () => {
    const master = await startMasterProcess(isolatedSetup());
    await startWorkerProcess(master.url, { name: "a" });
    await startWorkerProcess(master.url, { name: "b" });
    const id = await startRun(master.url, { scenario: scenario("stopped", "8s") });
    await waitFor(() => suite.target.total() > 50, { what: "load to flow" });
    master.signal("SIGSTOP");
    await hold(7000);
    master.signal("SIGCONT");
    const run = await waitForRunEnd(master.url, id, 60_000);
    expectWhole(run, suite.target.total());
    expect(run.summary.total.requests).toBeGreaterThan(500);
    expect(master.output.join("")).toContain("event loop stalled");
  });

  it("a 40 MB feeder queued during a run neither cuts the run short nor fails the queued one", async () => {
    const master = await startMasterProcess(isolatedSetup());
    await startWorkerProcess(master.url, { name: "a" });
    await startWorkerProcess(master.url, { name: "b" });
    const first = await startRun(master.url, { scenario: scenario("busy", "6s") });
    await waitFor(() => suite.target.total() > 50, { what: "load to flow" });
    const rows = Array.from(
      { length: 1_000_000 },
      (_, i) => `user-${i},secret-password-${i}-${"x".repeat(8)}`,
    );
    const csv = `user,password\n${rows.join("\n")}\n`;
    expect(csv.length).toBeGreaterThan(40_000_000);
    const second = await startRun(master.url, {
      scenario: {
        ...scenario("queued", "1s"),
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        data: { users: { file: "users.csv" } },
        requests: [{ name: "login", path: "/hello?u={{data.users.user}}" }],
      },
      files: { "users.csv": csv },
      queue: true,
    });
    const firstRun = await waitForRunEnd(master.url, first, 90_000);
    const firstCount = firstRun.summary.total.requests;
    const secondRun = await waitForRunEnd(master.url, second, 90_000);
    expect(secondRun.status, secondRun.error ?? "").toBe("finished");
    expect(secondRun.summary.total.requests).toBe(6);
    expectWhole(firstRun, suite.target.total() - 6);
    expect(firstCount).toBeGreaterThan(300);
  });
});
