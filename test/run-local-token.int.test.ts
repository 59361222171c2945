import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedSetup, killAll, spawnCli, waitFor } from "./support/processes.js";
import { rawRequest, wsUpgradeStatus } from "./support/raw-http.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// `volley run` starts a master inside itself on a loopback port: only that process knows its
// token, so another local process can neither stop the run (a CI job would then pass on a cut-
// short run) nor queue one of its own, nor join as a worker.
let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(async () => {
  await killAll();
  await target.close();
});

/** The TCP ports a process listens on (ss, as root on this machine). */
function listeningPorts(pid: number): number[] {
  const lines = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).split("\n");
  return lines
    .filter((line) => line.includes(`pid=${pid},`))
    .map((line) => Number(/:(\d+)\s/.exec(line.split(/\s+/)[3] + " ")?.[1]))
    .filter((port) => port > 0);
}

describe("volley run's own master", () => {
  it("answers no other process: stop, new runs and workers are refused; the run ends whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "volley-local-token-"));
    const file = join(dir, "run.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "guarded",
        target: target.url,
        load: { executor: "constant-vus", vus: 2, duration: "5s" },
        requests: [{ path: "/hello" }],
        thinkTime: "10ms",
      }),
    );
    const setup = isolatedSetup();
    const cli = spawnCli(["run", file, "--threads", "1"], {
      DATABASE_URL: setup.databaseUrl,
      VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
    });
    const runId = await waitFor(() => /Run (\S+) started/.exec(cli.output.join(""))?.[1], {
      what: "the run to start",
      failIf: () => cli.child.exitCode !== null,
    });
    const ports = listeningPorts(cli.child.pid as number);
    expect(ports.length).toBeGreaterThan(0);
    let masterUrl: string | null = null;
    for (const port of ports) {
      const answer = await rawRequest(`http://127.0.0.1:${port}`, "GET", "/api/health").catch(() => null);
      if (answer?.status === 200) masterUrl = `http://127.0.0.1:${port}`;
    }
    expect(masterUrl).not.toBeNull();
    const url = masterUrl as string;
    const stop = await rawRequest(url, "POST", `/api/runs/${runId}/stop`);
    expect(stop.status).toBe(401);
    const queue = await rawRequest(url, "POST", "/api/runs", {}, JSON.stringify({ scenario: {} }));
    expect(queue.status).toBe(401);
    expect((await rawRequest(url, "GET", "/api/runs")).status).toBe(401);
    expect(await wsUpgradeStatus(url, "/ws/worker")).toBe(401);
    expect(await cli.exited, cli.output.join("")).toBe(0);
    expect(cli.output.join("")).toMatch(/guarded: finished/);
    expect(cli.output.join("")).toContain(`${target.total().toLocaleString("en-US")} requests`);
  });
});
