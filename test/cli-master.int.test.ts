import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, cliSandbox } from "./support/cli-sandbox.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, sendJson, waitFor } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// `volley run --master URL`: against a running master, waiting its turn, judged against a baseline.
let target: TargetServer;
let cli: CliSandbox;
beforeAll(async () => {
  target = await startTargetServer();
  cli = cliSandbox("volley-cli-master-");
});
afterAll(() => target.close());
const writeScenario = (name: string, content: unknown, yaml = false) =>
  cli.writeScenario(name, content, yaml);
const volley = (args: string[]) => cli.volley(args);

describe("volley run against a master", () => {
  it("run --master: refused while the master is busy, then --queue waits its turn and passes", async () => {
    const master = await startTestMaster({ startDelayMs: 300 });
    const worker = await startTestWorker(master, { name: "cli-queue-worker" });
    try {
      const holder = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name: "cli-holder",
          target: target.url,
          // It holds the master until the queued run is seen waiting, then is stopped: no CLI's
          // start time on a loaded machine decides whether the second run had to wait.
          load: { executor: "constant-vus", vus: 1, duration: "5m" },
          thinkTime: "20ms",
          requests: [{ path: "/hello" }],
        },
      });
      const file = writeScenario("queued.json", {
        name: "cli-queued",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        requests: [{ path: "/hello" }],
      });
      const refused = await volley(["run", file, "--master", master.url]);
      expect(refused.code).toBe(2);
      expect(refused.output).toContain('run "cli-holder"');
      expect(refused.output).toContain("queue this run behind it");
      const queuing = volley(["run", file, "--master", master.url, "--queue"]);
      await waitFor(
        async () =>
          (
            await getJson<{ runs: Array<{ name: string }> }>(`${master.url}/api/runs?status=queued`)
          ).runs.some((r) => r.name === "cli-queued"),
        { what: "the CLI's run queued behind cli-holder" },
      );
      const stop = await sendJson("POST", `${master.url}/api/runs/${holder.body.id}/stop`, {});
      expect(stop.status).toBeLessThan(300);
      const queued = await queuing;
      expect(queued.code, queued.output).toBe(0);
      expect(queued.output).toMatch(/Run \S+ queued on .*: it starts when the runs before it end/);
      expect(queued.output).toContain("cli-queued: finished, 10 requests");
      const held = await getJson<RunDetail>(`${master.url}/api/runs/${holder.body.id}`);
      const runId = /Run (\S+) queued/.exec(queued.output)?.[1];
      const run = await getJson<RunDetail>(`${master.url}/api/runs/${runId}`);
      expect(Date.parse(run.startedAt as string)).toBeGreaterThanOrEqual(
        Date.parse(held.finishedAt as string),
      );
    } finally {
      await worker.shutdown(2000);
      await master.close();
    }
  });

  it("run --baseline: a slower run than the last of its name exits 1, one line per regression", async () => {
    const master = await startTestMaster({ startDelayMs: 300 });
    const worker = await startTestWorker(master, { name: "cli-baseline-worker" });
    try {
      const scenario = (ms: number) =>
        writeScenario(`baseline-${ms}.json`, {
          name: "cli-baseline",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 20 },
          requests: [{ name: "slow", path: `/slow?ms=${ms}` }],
        });
      const first = await volley(["run", scenario(2), "--master", master.url]);
      expect(first.code, first.output).toBe(0);
      const firstId = /Run (\S+) started/.exec(first.output)?.[1] as string;
      const noBaseline = await volley([
        "run",
        scenario(2),
        "--master",
        master.url,
        "--max-regression",
        "p95=10%",
      ]);
      expect(noBaseline.code).toBe(2);
      expect(noBaseline.output).toContain("--max-regression needs --baseline");
      const slower = await volley([
        ...["run", scenario(40), "--master", master.url],
        ...["--baseline", "last", "--max-regression", "p95=50%,rps=99%"],
      ]);
      expect(slower.code, slower.output).toBe(1);
      expect(slower.output).toContain(`Baseline ${firstId}: REGRESSION`);
      expect(slower.output).toMatch(
        /✗ p95 \d+\.\d ms vs \d+\.\d+ ms \(\+\d+\.\d %, allowed \+50 %\); 100\.0 % of requests slower than the baseline's p95, it had \d+\.\d+ %\n/,
      );
      expect(slower.output).toMatch(/✓ rps /);
      const lenient = await volley([
        ...["run", scenario(40), "--master", master.url],
        ...["--baseline", firstId, "--max-regression", "p95=100000%"],
      ]);
      expect(lenient.code, lenient.output).toBe(0);
      expect(lenient.output).toContain(`Baseline ${firstId}: within the limits`);
      const noPin = await volley(["run", scenario(2), "--master", master.url, "--baseline", "pinned"]);
      expect(noPin.code).toBe(2);
      expect(noPin.output).toContain('--baseline pinned: no run named "cli-baseline" is pinned');
      expect((await sendJson("POST", `${master.url}/api/runs/${firstId}/pin`)).status).toBe(200);
      const pinned = await volley([
        ...["run", scenario(2), "--master", master.url],
        ...["--baseline", "pinned", "--max-regression", "p95=100000%"],
      ]);
      expect(pinned.code, pinned.output).toBe(0);
      expect(pinned.output).toContain(`Baseline ${firstId}: within the limits`);
      const unknown = await volley(["run", scenario(2), "--master", master.url, "--baseline", "nope"]);
      expect(unknown.code).toBe(2);
      expect(unknown.output).toContain("--baseline: no run nope");
    } finally {
      await worker.shutdown(2000);
      await master.close();
    }
  });
});
