import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GrpcTestServer, startGrpcServer, TEST_PROTOS } from "./support/grpc-server.js";
import {
  hold,
  isolatedSetup,
  killAll,
  sendJson,
  startMasterProcess,
  startWorkerProcess,
  waitFor,
  waitForRunEnd,
  waitForRunSeconds,
} from "./support/processes.js";
import { freePort } from "./support/redis-server.js";
import { type StreamTestServer, startStreamServer } from "./support/stream-server.js";
import { startWsServer, type WsTestServer } from "./support/ws-server.js";

// WebSocket, streamed and gRPC traffic through the faults HTTP is tested under (distributed.int):
// the figures of their own (messages, events, stream timings) are checkpointed and merged
// exactly once like request counts, so a master killed mid-run and restarted ends the run with
// the servers' own counts.
let ws: WsTestServer;
let streams: StreamTestServer;
let grpc: GrpcTestServer;
beforeAll(async () => {
  [ws, streams, grpc] = await Promise.all([startWsServer(), startStreamServer(), startGrpcServer()]);
});
afterAll(async () => {
  await ws?.close();
  await streams?.close();
  await grpc?.close();
});
afterEach(async () => {
  await killAll();
  ws.reset();
  streams.reset();
  grpc.reset();
});

/** Starts a master and two workers, creates the run, kills the master at its second second and starts another; the run as it ended. */
async function throughMasterRestart(body: Record<string, unknown>): Promise<RunDetail> {
  const setup = isolatedSetup();
  const port = await freePort();
  const env = { VOLLEY_INSTANCE_ID: "protocol-master", VOLLEY_RUN_LEASE_MS: "3000" };
  const first = await startMasterProcess(setup, ["--port", String(port)], env);
  await startWorkerProcess(first.url, { name: "socket-1" });
  await startWorkerProcess(first.url, { name: "socket-2" });
  const created = await sendJson("POST", `${first.url}/api/runs`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  await waitForRunSeconds(first.url, id, 2);
  first.signal("SIGKILL");
  await first.exited;
  await hold(1000); // the master stays down for a second while its workers keep running
  const second = await startMasterProcess(setup, ["--port", String(port)], env);
  const run = await waitForRunEnd<RunDetail>(second.url, id, 90_000);
  expect(run.status).toBe("finished");
  expect(run.workers.every((w) => w.status === "finished")).toBe(true);
  return run;
}

describe("WebSocket, streams and gRPC through faults", () => {
  it("a master killed mid-run and restarted: handshakes, messages, streams and events equal the servers' counts", async () => {
    const run = await throughMasterRestart({
      scenario: {
        name: "protocols-through-a-restart",
        target: ws.url,
        load: { executor: "constant-vus", vus: 4, duration: "7s" },
        requests: [
          {
            name: "chat",
            ws: "/echo?delay=5",
            steps: [{ send: "hi {{vu}}" }, { expect: "echo: hi", name: "chat.reply" }, { close: true }],
          },
          {
            name: "feed",
            url: `${streams.url}/sse?first=20&gap=10&events=4`,
            stream: { kind: "sse", until: "[DONE]" },
          },
        ],
        thinkTime: "20ms",
      },
    });
    const byName = new Map(run.summary.requests.map((r) => [r.name, r]));
    expect(byName.get("chat")?.requests).toBe(ws.counts.handshakes);
    expect(byName.get("chat")?.ws).toMatchObject({
      messagesSent: ws.counts.received,
      messagesReceived: ws.counts.sent,
    });
    expect(byName.get("chat.reply")?.requests).toBe(ws.counts.sent);
    expect(byName.get("feed")?.requests).toBe(streams.counts.streams);
    expect(byName.get("feed")?.stream?.events).toBe(streams.counts.events);
    expect(byName.get("feed")?.stream?.eventsPerStream).toBe(4);
    expect(ws.counts.handshakes).toBeGreaterThan(20);
    await waitFor(() => ws.open === 0 && streams.open === 0, { what: "every socket and stream closed" });
  });

  it("a master killed mid-run and restarted: gRPC calls and stream messages equal the server's counts", async () => {
    const file = (name: string) => readFileSync(join(TEST_PROTOS, name)).toString("base64");
    const run = await throughMasterRestart({
      scenario: {
        name: "grpc-through-a-restart",
        target: grpc.target,
        load: { executor: "constant-vus", vus: 4, duration: "7s" },
        script: "./grpc.ts",
      },
      scripts: {
        "grpc.ts": `export default async function (vu) {
          const c = vu.grpc.connect({ proto: "greeter.proto" });
          await c.invoke("volley.example.Greeter/SayHello", { name: "x", delay_ms: 5 }, { name: "hello" });
          for await (const _ of c.serverStream("volley.example.Greeter/CountTo", { count: 3, gap_ms: 10 }, { name: "count" })) {}
        }`,
      },
      attachments: {
        "greeter.proto": file("greeter.proto"),
        "common/stamp.proto": file("common/stamp.proto"),
      },
    });
    const byName = new Map(run.summary.requests.map((r) => [r.name, r]));
    expect(byName.get("hello")?.requests).toBe(grpc.counts.calls.SayHello);
    expect(byName.get("count")?.requests).toBe(grpc.counts.calls.CountTo);
    expect(byName.get("count")?.ws?.messagesReceived).toBe(grpc.counts.streamOut);
    expect(run.summary.total.failures).toBe(0);
    expect(grpc.counts.calls.SayHello).toBeGreaterThan(20);
    await waitFor(() => grpc.open === 0, { what: "every channel closed" });
  });

  it("a worker killed mid-run: the survivor's gRPC calls equal the server's count for it, the lost one's at most the server's", async () => {
    const setup = isolatedSetup();
    const master = await startMasterProcess(setup, ["--heartbeat-timeout", "2"]);
    const doomed = await startWorkerProcess(master.url, { name: "doomed" });
    await startWorkerProcess(master.url, { name: "survivor" });
    const file = (name: string) => readFileSync(join(TEST_PROTOS, name)).toString("base64");
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "grpc-through-a-worker-kill",
        target: grpc.target,
        load: { executor: "constant-vus", vus: 4, duration: "6s" },
        requests: [
          {
            name: "hello",
            grpc: {
              proto: "greeter.proto",
              method: "volley.example.Greeter/SayHello",
              message: { name: "{{vu}}", delay_ms: 5 },
              metadata: { "x-worker": "{{worker}}" },
            },
          },
        ],
      },
      attachments: {
        "greeter.proto": file("greeter.proto"),
        "common/stamp.proto": file("common/stamp.proto"),
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await waitForRunSeconds(master.url, id, 3);
    doomed.signal("SIGKILL");
    const run = await waitForRunEnd<RunDetail>(master.url, id, 60_000);
    expect(run.status).toBe("finished");
    const survivor = run.workers.find((w) => w.name === "survivor");
    const lost = run.workers.find((w) => w.name === "doomed");
    expect(survivor).toMatchObject({ status: "finished", requests: grpc.counts.byWorker.survivor });
    expect(lost?.status).toBe("lost");
    expect(lost?.requests ?? 0).toBeGreaterThan(0);
    expect(lost?.requests ?? 0).toBeLessThanOrEqual(grpc.counts.byWorker.doomed);
    expect(run.summary.total.requests).toBe((survivor?.requests ?? 0) + (lost?.requests ?? 0));
    expect(run.warnings.find((w) => w.kind === "worker-lost")).toMatchObject({ workerName: "doomed" });
    await waitFor(() => grpc.open === 0, { what: "every channel closed, the killed worker's too" });
  });
});
