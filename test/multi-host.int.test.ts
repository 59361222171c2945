import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail, WorkerInfo } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestNetwork } from "./support/netns.js";
import {
  getJson,
  killAll,
  ROOT,
  sendJson,
  spawnCli,
  waitFor,
  waitForRunEnd,
  waitForRunSeconds,
} from "./support/processes.js";
import { skippedHere } from "./support/required-in-ci.js";

// Real separate hosts: the master (with Redis), two workers and the target, each in its own
// network namespace on a private bridge. One worker's cable is cut mid-run.
const canRun = !skippedHere(
  "multi-host.int.test.ts",
  TestNetwork.available() ? null : "this machine does not allow creating network namespaces",
);

describe.runIf(canRun)("multi-host run across network namespaces", () => {
  const net = new TestNetwork();
  const token = "multi-host-token-123";
  let masterUrl = "";
  let targetUrl = "";
  const services: ChildProcess[] = [];

  beforeAll(async () => {
    net.create();
    const masterIp = net.addHost("master", 1);
    net.addHost("w1", 2);
    net.addHost("w2", 3);
    const targetIp = net.addHost("target", 4);
    const dir = mkdtempSync(join(tmpdir(), "volley-multihost-"));
    services.push(
      start(
        net.on("master", [
          "redis-server",
          "--bind",
          masterIp,
          "--port",
          "6379",
          "--save",
          "",
          "--appendonly",
          "no",
          "--protected-mode",
          "no",
          "--dir",
          dir,
        ]),
      ),
      start(
        net.on("target", [process.execPath, join(ROOT, "test/support/target-main.mjs"), targetIp, "8080"]),
      ),
    );
    targetUrl = `http://${targetIp}:8080`;
    const master = spawnCli(
      ["master", "--host", masterIp, "--port", "8089", "--token", token, "--heartbeat-timeout", "2"],
      { DATABASE_URL: `file:${join(dir, "volley.db")}`, REDIS_URL: `redis://${masterIp}:6379` },
      ROOT,
      net.on("master", []),
    );
    masterUrl = `http://${masterIp}:8089`;
    await waitFor(() => master.output.join("").includes("Volley master on"), {
      what: `the master (${master.output.join("")})`,
      timeoutMs: 20_000,
    });
    const workers = ["w1", "w2"].map((name) =>
      spawnCli(
        ["worker", "--master", masterUrl, "--token", token, "--name", name, "--threads", "1"],
        {},
        ROOT,
        net.on(name, []),
      ),
    );
    // Generous on a loaded machine; a failure shows what the master and workers said.
    await waitFor(
      async () =>
        (await getJson<WorkerInfo[]>(`${masterUrl}/api/workers`, token)).filter((w) => w.state === "ready")
          .length === 2,
      { what: "both workers to join across the network", timeoutMs: 40_000 },
    ).catch((error: Error) => {
      const said = [master, ...workers].map((p) => p.output.join("").slice(-1500)).join("\n---\n");
      throw new Error(`${error.message}\n${said}`);
    });
    await waitFor(async () => (await fetch(`${targetUrl}/__counts`)).ok, { what: "the target" });
  });

  afterAll(async () => {
    await killAll();
    for (const service of services) service.kill("SIGKILL");
    net.destroy();
  });

  it("uses both workers; a worker whose link is cut is lost and its reported part stays in the report", async () => {
    const created = await sendJson(
      "POST",
      `${masterUrl}/api/runs`,
      {
        scenario: {
          name: "multi-host",
          target: targetUrl,
          load: { executor: "constant-vus", vus: 4, duration: "8s" },
          requests: [{ path: "/hello" }],
          thinkTime: "10ms",
          timeout: "2s",
        },
      },
      token,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForRunSeconds(masterUrl, created.body.id as string, 3, token);
    net.cut("w1");
    await waitFor(
      async () =>
        (await getJson<WorkerInfo[]>(`${masterUrl}/api/workers`, token)).find((w) => w.name === "w1")
          ?.state === "lost",
      { what: "the cut worker to be marked lost", timeoutMs: 8000 },
    );
    const run = await waitForRunEnd<RunDetail>(masterUrl, created.body.id as string, 60_000, token);
    expect(run.status).toBe("finished");
    const counts = await getJson<Record<string, number>>(`${targetUrl}/__counts`);
    const w1 = run.workers.find((w) => w.name === "w1");
    const w2 = run.workers.find((w) => w.name === "w2");
    expect(w1?.status).toBe("lost");
    expect(w2?.status).toBe("finished");
    const fromW1 = counts[`${net.hosts.get("w1")?.address}`] ?? 0;
    const fromW2 = counts[`${net.hosts.get("w2")?.address}`] ?? 0;
    expect(fromW1).toBeGreaterThan(0);
    expect(fromW2).toBeGreaterThan(fromW1);
    // Everything the survivor sent, and what the cut worker reported before its cable went.
    expect(w2?.requests).toBe(fromW2);
    expect(run.summary.total.requests).toBe(fromW2 + (w1?.requests ?? 0));
    expect(w1?.requests).toBeGreaterThan(0);
    expect(w1?.requests).toBeLessThanOrEqual(fromW1);
  });
});

function start([command, ...args]: string[]): ChildProcess {
  return spawn(command, args, { stdio: "ignore" });
}
