import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getJson,
  isolatedSetup,
  killAll,
  ROOT,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
} from "./support/processes.js";

// 38,000 VUs, each on its own keep-alive connection, against one target ip:port from this one
// machine: more than one source address has ephemeral ports (~28,000) and more than one
// process may open files (20,000 here), so two `volley worker` processes of 19,000 VUs each
// spread their connections over four source addresses, against a target of four processes.
// The target answers after 5 s, so every VU has its request in flight, on a connection of its
// own, at the same time; it counts every request and connection, by client address.
const VUS = 38_000;
const SOURCES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];

interface Counts {
  requests: number;
  accepted: number;
  open: number;
  bySource: Record<string, number>;
}
let target: ChildProcess;
let targetUrl = "";
let adminUrl = "";

beforeAll(async () => {
  target = spawn(process.execPath, [join(ROOT, "test/support/cluster-target-main.mjs"), "4"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    target.stdout?.on("data", (d: Buffer) => resolve(String(d)));
    target.once("exit", () => reject(new Error("the cluster target exited")));
  });
  [, targetUrl, adminUrl] = /target (\S+) admin (\S+)/.exec(line) as RegExpExecArray;
});
afterAll(async () => {
  await killAll();
  target?.kill("SIGTERM");
});

/** VmHWM (peak RSS) of a process, in MB. */
function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

describe("38,000 connections to one target from one machine", () => {
  // One retry: 38,000 sockets on a 2-core machine depend on what else the machine does (a second
  // failure is a failure; each attempt asserts everything).
  it("two workers of 19,000 VUs over four source addresses: every VU its own connection, 0 errors, exact, none left open", {
    retry: 1,
  }, async () => {
    const master = await startMasterProcess(isolatedSetup());
    const workers = await Promise.all(
      ["conn-a", "conn-b"].map((name) => startWorkerProcess(master.url, { name, threads: 2 })),
    );
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "connections-38k",
        target: targetUrl,
        load: { executor: "constant-vus", vus: VUS, duration: "25s", rampUp: "15s", gracefulStop: "15s" },
        http: { keepAliveTimeout: "60s", localAddresses: ["127.0.0.2-127.0.0.5"] },
        timeout: "30s",
        requests: [{ name: "hello", path: "/hello?delay=5000" }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 150_000);
    expect(run.status, run.error ?? "").toBe("finished");
    expect(run.summary.errors).toEqual([]);
    expect(run.workers.map((w) => w.vus)).toEqual([VUS / 2, VUS / 2]);
    const counts = await getJson<Counts>(`${adminUrl}/counts`);
    expect(run.summary.total.requests).toBe(counts.requests);
    expect(counts.requests).toBeGreaterThan(VUS);
    // One connection per VU, never replaced, spread evenly over the four source addresses.
    expect(counts.accepted).toBe(VUS);
    expect(Object.keys(counts.bySource).sort()).toEqual(SOURCES);
    for (const source of SOURCES) expect(counts.bySource[source]).toBe(VUS / SOURCES.length);
    // Every socket closed at the end of the run.
    await waitFor(async () => (await getJson<Counts>(`${adminUrl}/counts`)).open === 0 || undefined, {
      what: "the target to see every connection closed",
      timeoutMs: 20_000,
    });
    for (const worker of workers) {
      const pid = worker.child.pid as number;
      expect(peakRssMb(pid), `${worker.name}'s peak RSS`).toBeLessThanOrEqual(400);
    }
  });
});
