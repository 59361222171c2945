import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processSuite } from "./support/process-suite.js";
import {
  isolatedSetup,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
} from "./support/processes.js";
import { freePort } from "./support/redis-server.js";

// SQLite on a small file system that fills up mid-run and is freed again: checkpoints resume,
// the run ends with the target's exact count, the next run starts, and SIGTERM stops the master.
// The file system is a tmpfs this test mounts (CI runs as root, as the machines do).
const suite = processSuite();
let mountPoint: string;

beforeAll(() => {
  mountPoint = mkdtempSync(join(tmpdir(), "volley-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", mountPoint]);
});
afterAll(() => {
  execFileSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const scenario = (name: string, duration: string) => ({
  name,
  target: suite.target.url,
  load: { executor: "constant-vus", vus: 4, duration },
  requests: [
    { name: "hello", path: "/hello" },
    { name: "world", path: "/echo?x={{iter}}" },
  ],
  thinkTime: "5ms",
});

/** Fills the file system to the last byte (a file of zeros); returns its path. */
function fill(): string {
  const filler = join(mountPoint, "filler");
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
  } catch {
    // dd ends with "No space left on device": that is the point.
  }
  return filler;
}

describe("SQLite on a full disk", () => {
  it("freed again: checkpoints resume, the run is exact, the next starts, SIGTERM stops the master", async () => {
    const setup = { ...isolatedSetup(), databaseUrl: `file:${join(mountPoint, "volley.db")}` };
    const master = await startMasterProcess(setup);
    await startWorkerProcess(master.url, { name: "a" });
    const created = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario("full", "10s") });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitFor(() => suite.target.total() > 100, { what: "load to flow" });
    const filler = fill();
    await waitFor(() => /SQLITE_FULL|disk is full/.test(master.output.join("")), {
      what: `a checkpoint to fail for the full disk (${master.output.join("").slice(-2000)})`,
      timeoutMs: 20_000,
    });
    const seen = suite.target.total();
    await waitFor(() => suite.target.total() > seen + 200, { what: "load to go on meanwhile" });
    rmSync(filler);
    writeFileSync(join(mountPoint, "freed"), "");
    const run = await waitForRunEnd<RunDetail>(master.url, id, 90_000);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(suite.target.total());
    suite.target.reset();
    const next = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        ...scenario("after", "1s"),
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
      },
    });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    const after = await waitForRunEnd<RunDetail>(master.url, next.body.id as string, 30_000);
    expect(after.summary.total.requests).toBe(20);
    expect(suite.target.total()).toBe(20);
    const stopped = Date.now();
    master.signal("SIGTERM");
    await waitFor(() => master.child.exitCode !== null, { what: "the master to exit", timeoutMs: 30_000 });
    expect(Date.now() - stopped).toBeLessThan(30_000);
  });

  it("killed while the disk is full and restarted once it is freed: the run ends with the exact count", async () => {
    suite.target.reset();
    const setup = { ...isolatedSetup(), databaseUrl: `file:${join(mountPoint, "restart.db")}` };
    const port = String(await freePort());
    const env = { VOLLEY_INSTANCE_ID: "full-master" };
    const first = await startMasterProcess(setup, ["--port", port], env);
    await startWorkerProcess(first.url, { name: "a" });
    const created = await sendJson("POST", `${first.url}/api/runs`, {
      scenario: scenario("restarted", "8s"),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitFor(() => suite.target.total() > 100, { what: "load to flow" });
    const filler = fill();
    await waitFor(() => /SQLITE_FULL|disk is full/.test(first.output.join("")), {
      what: "a checkpoint to fail for the full disk",
      timeoutMs: 20_000,
    });
    first.signal("SIGKILL");
    rmSync(filler);
    const second = await startMasterProcess(setup, ["--port", port], env);
    const run = await waitForRunEnd<RunDetail>(second.url, id, 90_000);
    expect(run.status).toBe("finished");
    expect(run.summary.total.requests).toBe(suite.target.total());
  });
});
