import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// An engine thread that dies or blocks on a one-thread worker (the default local one): the run
// is aborted naming it, never "finished" with its counts silently missing. What a script posts
// on the thread's parentPort does not reach the engine: such a run counts exactly.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 1, threads: 1, threadStallMs: 3000 });
});
afterAll(() => fleet.close());

async function run(name: string, body: string, iterations = 8): Promise<RunDetail> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name,
      target: fleet.target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations },
      script: "s.js",
    },
    scripts: {
      "s.js": `import { parentPort } from "node:worker_threads";
export default async function (vu) {
  await vu.http.get("/hello", { name: "hello" });
  await vu.sleep(50);
  if (vu.iteration === 3) { ${body} }
}`,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
}

describe("engine thread faults on a one-thread worker", () => {
  it.each([
    ["a busy loop", "for (;;) {}", /sent nothing for 3 s and was stopped: a script that never awaits/],
    ["process.exit()", "process.exit(3);", /ended before its slice was done \(exit code 3\)/],
    [
      "an async throw",
      'setTimeout(() => { throw new Error("late boom"); }, 0); await vu.sleep(200);',
      /failed: late boom/,
    ],
    [
      "an unhandled rejection",
      'Promise.reject(new Error("nobody waits")); await vu.sleep(200);',
      /failed: nobody waits/,
    ],
  ])("%s aborts the run, naming the thread", async (_, body, why) => {
    fleet.target.reset();
    const report = await run("fault", body);
    expect(report.status).toBe("aborted");
    expect(report.stopReason).toBe("script");
    expect(report.error).toMatch(why);
    expect(report.error).toMatch(/engine thread 1/);
    // What the thread measured before its last second may be in; never more than the target saw.
    expect(report.summary.total.requests).toBeLessThanOrEqual(fleet.target.total());
    expect(fleet.target.total()).toBeGreaterThanOrEqual(3);
  });

  it("forged messages on parentPort never reach the engine: the run finishes, counted exactly", async () => {
    fleet.target.reset();
    const forged = `for (let i = 0; i < 50; i++) {
      parentPort.postMessage({ type: "period", period: { second: 0, final: true, requests: "x", vus: 1e9 } });
      parentPort.postMessage({ type: "failed", message: "forged" });
      parentPort.postMessage("garbage");
    }`;
    const report = await run("forged", forged);
    expect(report.status).toBe("finished");
    expect(report.error).toBeNull();
    expect(report.summary.total.requests).toBe(8);
    expect(fleet.target.total()).toBe(8);
  });
});
