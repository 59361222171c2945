import type { RunningMaster } from "@volley/master";
import type { WorkerInfo } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeWorker } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { getJson, waitFor } from "./support/processes.js";

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
      await new Promise((r) => setTimeout(r, 300));
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
});
