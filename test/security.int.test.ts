import type { RunDetail, WorkerInfo } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  getJson,
  isolatedSetup,
  killAll,
  sendJson,
  spawnCli,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
  waitForRunSeconds,
} from "./support/processes.js";
import { wsUpgradeStatus } from "./support/raw-http.js";
import { freePort } from "./support/redis-server.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
afterEach(() => killAll());

const TOKEN = "never-log-this-secret-42";

const upgradeStatus = (url: string, token?: string) =>
  wsUpgradeStatus(url, "/ws/worker", token ? { authorization: `Bearer ${token}` } : {});

describe("security and operations", () => {
  it("a separate worker listener takes workers (token required) while the API stays on loopback", async () => {
    const workerPort = await freePort();
    const master = await startMasterProcess(isolatedSetup(), [
      "--worker-host",
      "127.0.0.2",
      "--worker-port",
      String(workerPort),
      "--token",
      TOKEN,
    ]);
    const workerUrl = `http://127.0.0.2:${workerPort}`;
    expect(await upgradeStatus(workerUrl)).toBe(401);
    expect(await upgradeStatus(workerUrl, "wrong-token-12345")).toBe(401);
    expect(await upgradeStatus(workerUrl, TOKEN)).toBe(101);
    // The worker listener serves the socket and a health check, nothing else (deny by default).
    expect((await fetch(`${workerUrl}/api/health`)).status).toBe(200);
    expect((await fetch(`${workerUrl}/api/runs`)).status).toBe(401);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${workerUrl}/api/runs`, { headers: auth })).status).toBe(404);
    // The API is on loopback, but a token is set: it needs it too. It advertises the worker listener.
    expect((await fetch(`${master.url}/api/workers`)).status).toBe(401);
    const config = await getJson<{ workerUrl: string; workerCommand: string }>(`${master.url}/api/config`);
    expect(config.workerUrl).toBe(workerUrl);
    expect(config.workerCommand).toContain("--token <token>");
    spawnCli(["worker", "--master", workerUrl, "--token", TOKEN, "--name", "remote", "--threads", "1"]);
    await waitFor(
      async () =>
        (await getJson<WorkerInfo[]>(`${master.url}/api/workers`, TOKEN)).some(
          (w) => w.name === "remote" && w.state === "ready",
        ),
      { what: "the worker to join through the worker listener" },
    );
  });

  it("never logs the token", async () => {
    const master = await startMasterProcess(isolatedSetup(), ["--token", TOKEN], {
      VOLLEY_LOG_LEVEL: "debug",
    });
    await upgradeStatus(master.url, "wrong-token-12345");
    const worker = await startWorkerProcess(master.url, {
      name: "tokened",
      token: TOKEN,
      env: { VOLLEY_LOG_LEVEL: "debug" },
    });
    await sendJson("POST", `${master.url}/api/login`, { token: TOKEN });
    await sendJson("POST", `${master.url}/api/login`, { token: "wrong" });
    const created = await sendJson(
      "POST",
      `${master.url}/api/runs`,
      {
        scenario: {
          name: "quiet",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
          requests: [{ path: "/hello" }],
        },
      },
      TOKEN,
    );
    await waitForRunEnd(master.url, created.body.id as string, 60_000, TOKEN);
    master.signal("SIGTERM");
    worker.signal("SIGTERM");
    await Promise.all([master.exited, worker.exited]);
    const logs = master.output.join("") + worker.output.join("");
    expect(logs).toContain("worker refused: wrong or missing token");
    expect(logs).not.toContain(TOKEN);
  });

  it("SIGTERM: a worker stops its run and sends its last batches; the master exits cleanly", async () => {
    const master = await startMasterProcess(isolatedSetup());
    const worker = await startWorkerProcess(master.url, { name: "terminated" });
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "sigterm",
        target: target.url,
        load: { executor: "constant-vus", vus: 4, duration: "1m" },
        requests: [{ path: "/hello" }],
        thinkTime: "5ms",
      },
    });
    await waitForRunSeconds(master.url, created.body.id as string, 2);
    worker.signal("SIGTERM");
    expect(await worker.exited).toBe(0);
    const run = await waitForRunEnd<RunDetail>(master.url, created.body.id as string);
    expect(run.summary.total.requests).toBe(target.total());
    expect(run.workers[0].status).toBe("finished");
    master.signal("SIGTERM");
    expect(await master.exited).toBe(0);
  });
});
