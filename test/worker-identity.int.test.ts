import { gunzipSync } from "node:zlib";
import type { RunningMaster } from "@volley/master";
import type { RunDetail, WorkerInfo } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeWorker, requestStats } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { getJson, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

const TOKEN = "identity-test-token";
let master: RunningMaster;
beforeAll(async () => {
  master = await startTestMaster({ token: TOKEN, lostWorkerRetentionMs: 1500, heartbeatTimeoutMs: 1000 });
});
afterAll(() => master?.close());

const fake = (workerId?: string) =>
  new FakeWorker({
    masterUrl: master.url,
    queuePrefix: master.services.config.queuePrefix,
    token: TOKEN,
    workerId,
  }).open();

const workers = () => getJson<WorkerInfo[]>(`${master.url}/api/workers`, TOKEN);

describe("worker identity", () => {
  it("one socket is one worker: a second hello is a protocol error that closes it", async () => {
    const socket = await fake();
    try {
      socket.hello();
      for (let i = 0; i < 50; i++) socket.hello(`other-${i}`);
      await waitFor(() => socket.closeCode, { what: "the socket to be closed" });
      expect(socket.closeCode).toBe(1008);
      const ids = (await workers()).map((w) => w.id);
      expect(ids).toContain(socket.workerId);
      expect(ids.filter((id) => id.startsWith("other-"))).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  it("a live worker's id cannot be taken over; a lost one is pruned after a while", async () => {
    const real = await fake("victim");
    const beat = setInterval(() => real.heartbeat("ready", null), 200);
    try {
      real.hello();
      real.heartbeat("ready", null);
      await waitFor(async () => (await workers()).some((w) => w.id === "victim" && w.state === "ready"), {
        what: "the worker",
      });
      const impostor = await fake("victim");
      impostor.hello();
      await waitFor(() => impostor.closeCode, { what: "the impostor to be refused" });
      expect(impostor.closeCode).toBe(4002);
      // The master took a later heartbeat of the real worker after refusing the impostor.
      const refusedAt = Date.now();
      await waitFor(
        async () =>
          Date.parse((await workers()).find((w) => w.id === "victim")?.lastSeenAt ?? "") > refusedAt,
        { what: "a heartbeat of the real worker after the refusal" },
      );
      expect(real.closeCode).toBeNull();
      expect((await workers()).find((w) => w.id === "victim")?.state).toBe("ready");
      await impostor.close();
    } finally {
      clearInterval(beat);
    }
    // Silent: lost after the heartbeat timeout, then gone from the list after the retention.
    await waitFor(async () => (await workers()).find((w) => w.id === "victim")?.state === "lost", {
      what: "the silent worker to be lost",
    });
    await waitFor(async () => !(await workers()).some((w) => w.id === "victim"), {
      what: "the lost worker to be pruned",
      timeoutMs: 10_000,
    });
    await real.close();
  });

  it("a run one worker refused says so in its warnings", async () => {
    const good = await FakeWorker.join(master, { token: TOKEN });
    const bad = await FakeWorker.join(master, { token: TOKEN });
    try {
      const created = await sendJson(
        "POST",
        `${master.url}/api/runs`,
        {
          scenario: {
            name: "half",
            target: "http://127.0.0.1:9",
            load: { executor: "constant-vus", vus: 2, duration: "5s" },
            requests: [{ name: "hello", path: "/hello" }],
          },
        },
        TOKEN,
      );
      const runId = created.body.id as string;
      await good.next("start-run");
      await bad.next("start-run");
      good.send({ type: "run-accepted", runId });
      bad.send({ type: "run-rejected", runId, message: "out of memory" });
      await good.push({ runId, seq: 0, final: true, requests: [requestStats("hello", 3)] });
      const run = await waitForRunEnd<RunDetail>(master.url, runId, 30_000, TOKEN);
      expect(run.summary.total.requests).toBe(3);
      expect(run.warnings.find((w) => w.kind === "worker-refused")?.message).toContain(
        `${bad.workerId} refused the run (out of memory)`,
      );
    } finally {
      await good.close();
      await bad.close();
    }
  });

  it("feeder tables travel packed: gzip once per run, the same bytes to every worker", async () => {
    const one = await FakeWorker.join(master, { token: TOKEN });
    const two = await FakeWorker.join(master, { token: TOKEN });
    // This file's master counts a worker lost after 1 s of silence; making a 20,000-row run can
    // take longer than that on a busy machine.
    for (const worker of [one, two]) worker.keepBeating("ready");
    try {
      const csv = `email,plan\n${Array.from({ length: 20_000 }, (_, i) => `user${i}@example.test,basic`).join("\n")}\n`;
      const created = await sendJson(
        "POST",
        `${master.url}/api/runs`,
        {
          scenario: {
            name: "packed",
            target: "http://127.0.0.1:9",
            load: { executor: "constant-vus", vus: 2, duration: "5s" },
            data: { users: { file: "users.csv", mode: "unique" } },
            requests: [{ name: "hello", path: "/u/{{data.users.email}}" }],
          },
          files: { "users.csv": csv },
        },
        TOKEN,
      );
      const runId = created.body.id as string;
      const [first, second] = [await one.next("start-run"), await two.next("start-run")];
      expect(first.data).toEqual({});
      expect(first.packedFiles).toBe(second.packedFiles);
      const packed = first.packedFiles as string;
      expect(packed.length).toBeLessThan(csv.length / 4);
      const files = JSON.parse(gunzipSync(Buffer.from(packed, "base64")).toString());
      expect(files.data.users.rows).toHaveLength(20_000);
      expect(files.data.users.rows[7]).toEqual(["user7@example.test", "basic"]);
      for (const worker of [one, two]) {
        worker.send({ type: "run-accepted", runId });
        worker.keepBeating("running", runId);
        await worker.push({ runId, seq: 0, final: true, requests: [requestStats("hello", 1)] });
      }
      expect((await waitForRunEnd<RunDetail>(master.url, runId, 30_000, TOKEN)).summary.total.requests).toBe(
        2,
      );
    } finally {
      await one.close();
      await two.close();
    }
  });
});
