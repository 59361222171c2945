import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { freePort } from "./support/redis-server.js";

// The README's two commands on a fresh clone: install, then `pnpm start`; then the README's first
// test against the demo shop `pnpm start` runs beside the dashboard. The pnpm store is reused, so
// this measures our install and build, not the registry.
describe("quick start from a clean clone", () => {
  let clone: string;

  beforeAll(async () => {
    clone = mkdtempSync(join(tmpdir(), "volley-clone-"));
    execFileSync("git", ["clone", "--quiet", ROOT, clone]);
  });
  afterAll(async () => {
    rmSync(clone, { recursive: true, force: true });
  });

  it("README install, pnpm start, the README's first test against the demo shop with no failure, Ctrl-C leaves nothing behind", async () => {
    const readme = readFileSync(join(clone, "README.md"), "utf8");
    expect(readme).toContain("pnpm install");
    expect(readme).toContain("pnpm start");
    expect(readme).toContain("pnpm test");
    execFileSync("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], {
      cwd: clone,
      stdio: "ignore",
    });

    const [port, demoPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
    const start = spawn(
      "pnpm",
      [
        "start",
        "--port",
        String(port),
        "--demo-port",
        String(demoPort),
        "--demo-grpc-port",
        String(grpcPort),
      ],
      {
        cwd: clone,
        env: { ...process.env, VOLLEY_QUEUE_PREFIX: `quickstart-${process.pid}`, DATABASE_URL: undefined },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    const output: string[] = [];
    start.stdout.on("data", (d: Buffer) => output.push(d.toString()));
    start.stderr.on("data", (d: Buffer) => output.push(d.toString()));
    // pnpm itself dies of the SIGINT (as in a terminal); what matters is that nothing failed.
    const exited = new Promise<string>((resolve) =>
      start.on("exit", (code, signal) => resolve(signal ?? `code ${code}`)),
    );
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await getJson<{ ok: boolean }>(`${url}/api/health`)).ok, {
        what: `pnpm start to answer (output: ${output.join("").slice(-2000)})`,
        timeoutMs: 240_000,
        intervalMs: 500,
      });
      const workers = await waitFor(
        async () => {
          const list = await getJson<Array<{ state: string; local: boolean }>>(`${url}/api/workers`);
          return list.filter((w) => w.state === "ready").length === 1 ? list : undefined;
        },
        { what: "one ready local worker", timeoutMs: 30_000 },
      );
      expect(workers[0].local).toBe(true);
      // The README's first test, as written (its target is the demo's default port), scaled down.
      const firstTest = /cat > checkout\.yaml <<'YAML'\n([\s\S]*?)\nYAML/.exec(readme)?.[1];
      expect(firstTest, "the README's first test").toBeDefined();
      const scenario = parse(firstTest as string) as Record<string, unknown>;
      expect(scenario.target).toBe("http://127.0.0.1:18080");
      const demo = `http://127.0.0.1:${demoPort}`;
      await waitFor(async () => (await fetch(`${demo}/health`)).ok, {
        what: "the demo shop",
        timeoutMs: 30_000,
      });
      const created = await sendJson("POST", `${url}/api/runs`, {
        scenario: {
          ...scenario,
          target: demo,
          load: { executor: "per-vu-iterations", vus: 5, iterations: 20 },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const run = await waitForRunEnd(url, created.body.id as string);
      expect(run.status).toBe("finished");
      expect(run.summary.total).toMatchObject({ requests: 200, failures: 0 });
      expect(run.passed).toBe(true);
      expect(await getJson<{ ordersPlaced: number }>(`${demo}/stats`)).toMatchObject({ ordersPlaced: 100 });
      const page = await fetch(`${url}/runs/${run.id}`);
      expect(await page.text()).toContain('<div id="root">');
    } finally {
      process.kill(-start.pid!, "SIGINT");
    }
    expect(["SIGINT", "code 0"]).toContain(await exited);
    // Everything started from the clone ends within a few seconds of Ctrl-C.
    const leftovers = () =>
      execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
        .split("\n")
        .filter((line) => line.includes(clone) && !line.includes("ps -eo"));
    await waitFor(() => leftovers().length === 0, { what: "no process left", timeoutMs: 10_000 }).catch(
      () => undefined,
    );
    expect(leftovers()).toEqual([]);
    expect(readFileSync(join(clone, "data/volley.db")).length).toBeGreaterThan(0);
  });
});
